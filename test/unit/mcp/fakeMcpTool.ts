import { z } from 'zod';
import { createJsonSchemaValidator } from '../../../src/core/mcp/jsonSchemaCheck';
import { modelParameters } from '../../../src/core/mcp/mcpTools';
import type { McpAnnotations } from '../../../src/core/config/mcpTypes';
import { mcpToolName } from '../../../src/core/mcp/toolNames';
import type { ToolDefinition } from '../../../src/core/tools/toolTypes';

/** An MCP-shaped registry tool without a server (registry, policy and selection tests). */
export function fakeMcpTool(
  server: string,
  tool: string,
  options: { description?: string; annotations?: McpAnnotations; inputSchema?: Record<string, unknown> } = {},
): ToolDefinition {
  const parameters = modelParameters(
    options.inputSchema ?? { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  );
  return {
    name: mcpToolName(server, tool),
    description: `${options.description ?? `The ${tool} tool`} (MCP server "${server}")`,
    schema: z.record(z.string(), z.unknown()),
    parameters,
    validate: createJsonSchemaValidator(parameters),
    kind: 'other',
    readOnly: options.annotations?.readOnlyHint === true,
    origin: { kind: 'mcp', server, tool, ...(options.annotations ? { annotations: options.annotations } : {}) },
    idempotent: options.annotations?.readOnlyHint === true || options.annotations?.idempotentHint === true,
    changes: 'unrecorded',
    run: () => Promise.resolve('ok'),
  };
}
