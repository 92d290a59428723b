import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { toStrictSchema } from '../tools/strictSchema';
import { ToolError, type ToolDefinition } from '../tools/toolTypes';
import { createJsonSchemaValidator } from './jsonSchemaCheck';
import type { McpAnnotations } from '../config/mcpTypes';
import type { McpOrigin } from '../policy/toolOrigin';
import { renderToolResult } from './resultText';
import { reportResult } from './resultReport';
import type { McpServerConnection } from './serverConnection';
import { mcpToolName } from './toolNames';
import { isRecord } from '../text/isRecord';

// An MCP server's tools as registry tools (docs/design.md, “MCP tools”): named `<server>_<tool>`, their
// `inputSchema` made strict like the native schemas and used both for the model and for the
// pipeline's validation (strict closes only objects whose fields the server lists, where an
// unknown field is a misspelt one; a free-form object the server leaves open stays open, so
// whatever the server accepts there reaches it), `readOnlyHint` as the read-only flag (which lets them run concurrently
// in parallel mode; the policy still asks unless the server is allowed), `readOnlyHint` or
// `idempotentHint` as idempotent (a repeat within a batch reuses the first result), what they change
// as unrecorded by the checkpoints, and every result rendered as text with the raw result reported
// for the trace.

/** A registry tool that stands for a tool of an MCP server. */
export type McpToolDefinition = ToolDefinition & { origin: McpOrigin };

/** Arguments are checked by `validate`; the zod schema is only a placeholder for the type. */
const ANY_OBJECT = z.record(z.string(), z.unknown());

function annotationsOf(tool: Tool): McpAnnotations | undefined {
  const raw = tool.annotations;
  if (!raw) return undefined;
  const out: McpAnnotations = {};
  if (typeof raw.title === 'string') out.title = raw.title;
  for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) if (typeof raw[key] === 'boolean') out[key] = raw[key];
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The input schema as the model sees it: an object schema, `$schema` removed, strict. */
export function modelParameters(inputSchema: unknown): Record<string, unknown> {
  const source = isRecord(inputSchema) ? inputSchema : {};
  const { $schema: _ignored, ...schema } = source;
  return toStrictSchema({ ...schema, type: 'object' });
}

function describe(server: string, tool: Tool): string {
  const text = (tool.description ?? tool.title ?? tool.annotations?.title ?? '').trim();
  return `${text || `The tool "${tool.name}"`} (MCP server "${server}")`;
}

/** Registry tools for every tool the connection listed; `readResourceTool` names the server's read_resource tool in resource links. */
export function mcpToolDefinitions(connection: McpServerConnection, readResourceTool?: string): McpToolDefinition[] {
  return connection.tools.map((tool) => {
    const parameters = modelParameters(tool.inputSchema);
    const annotations = annotationsOf(tool);
    const origin: McpOrigin = { kind: 'mcp', server: connection.name, tool: tool.name, ...(annotations ? { annotations } : {}) };
    const definition: McpToolDefinition = {
      name: mcpToolName(connection.name, tool.name),
      description: describe(connection.name, tool),
      schema: ANY_OBJECT,
      parameters,
      validate: createJsonSchemaValidator(parameters),
      kind: 'other',
      readOnly: annotations?.readOnlyHint === true,
      origin,
      idempotent: annotations?.readOnlyHint === true || annotations?.idempotentHint === true,
      changes: 'unrecorded',
      async run(args, context) {
        const result = await connection.callTool(tool.name, args as Record<string, unknown>, { signal: context.signal, timeoutMs: context.timeoutMs });
        const rendered = renderToolResult(result, { images: context.images, readResourceTool });
        reportResult(context, { server: connection.name, tool: tool.name }, rendered);
        if (rendered.isError)
          throw new ToolError(rendered.text || `the tool "${tool.name}" of MCP server "${connection.name}" reported an error without a message`);
        return rendered.text;
      },
    };
    return definition;
  });
}
