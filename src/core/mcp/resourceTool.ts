import { z } from 'zod';
import type { McpOrigin } from '../policy/toolOrigin';
import { createJsonSchemaValidator } from './jsonSchemaCheck';
import { modelParameters, type McpToolDefinition } from './mcpTools';
import { renderReadResult } from './resultText';
import { reportResult } from './resultReport';
import type { McpServerConnection } from './serverConnection';
import { mcpToolName } from './toolNames';

// A server's resources as one tool (docs/design.md, “MCP tools”): a server that listed resources
// or resource templates at start gets `<server>_read_resource`, which reads one URI with
// `resources/read`. Its description lists the URIs (bounded), so the model knows what there is;
// it is read-only and idempotent, so de-duplication and the parallel mode treat it as the read it
// is, and the policy treats it as a read-only tool of that server. Text comes back inline and
// clipped, images as images when the model takes them, other binary data described.

/** The tool's own name on the server side of its origin (policy: `mcp:<server>/read_resource`). */
export const READ_RESOURCE = 'read_resource';
/** The most resources and templates named in the description, and its longest list. */
const MAX_LISTED = 25;
const MAX_LIST_CHARS = 2_000;

const ANY_OBJECT = z.record(z.string(), z.unknown());

function entry(uri: string, details: Array<string | undefined>): string {
  const known = details.filter((d): d is string => typeof d === 'string' && d.trim() !== '').map((d) => d.replace(/\s+/g, ' ').slice(0, 80));
  return `- ${uri}${known.length ? ` (${known.join(', ')})` : ''}`;
}

/** The resources and templates as description lines, bounded in number and length. */
function listing(connection: McpServerConnection): string {
  const lines = [
    ...connection.resources.map((r) => entry(r.uri, [r.title ?? r.name, r.mimeType])),
    ...connection.resourceTemplates.map((t) => entry(t.uriTemplate, [`template: fill in the {…} parts`, t.title ?? t.name, t.mimeType])),
  ];
  const kept: string[] = [];
  let chars = 0;
  for (const line of lines) {
    if (kept.length >= MAX_LISTED || chars + line.length > MAX_LIST_CHARS) break;
    kept.push(line);
    chars += line.length + 1;
  }
  const left = lines.length - kept.length;
  return [...kept, ...(left > 0 ? [`- … and ${left} more (any URI the server serves may be read)`] : [])].join('\n');
}

/** The read_resource tool of a server that has resources, or undefined. */
export function mcpResourceTool(connection: McpServerConnection): McpToolDefinition | undefined {
  if (connection.resources.length === 0 && connection.resourceTemplates.length === 0) return undefined;
  const server = connection.name;
  // A server's own tool may already be called read_resource: Cortex's then takes another name.
  const ownNames = new Set(connection.tools.map((tool) => mcpToolName(server, tool.name)));
  const plain = mcpToolName(server, READ_RESOURCE);
  const name = ownNames.has(plain) ? mcpToolName(server, `cortex_${READ_RESOURCE}`) : plain;
  const parameters = modelParameters({
    type: 'object',
    properties: { uri: { type: 'string', minLength: 1, maxLength: 2048, description: 'The URI of the resource, as listed' } },
    required: ['uri'],
  });
  const origin: McpOrigin = { kind: 'mcp', server, tool: READ_RESOURCE, annotations: { title: 'Read resource', readOnlyHint: true, idempotentHint: true } };
  return {
    name,
    description: `Reads one resource of MCP server "${server}" by its URI (resources/read). Its resources:\n${listing(connection)}`,
    schema: ANY_OBJECT,
    parameters,
    validate: createJsonSchemaValidator(parameters),
    kind: 'other',
    readOnly: true,
    origin,
    idempotent: true,
    changes: 'none',
    async run(args, context) {
      const uri = String((args as { uri: unknown }).uri);
      const result = await connection.readResource(uri, { signal: context.signal, timeoutMs: context.timeoutMs });
      const rendered = renderReadResult(result, { images: context.images });
      reportResult(context, { server, tool: READ_RESOURCE }, rendered);
      return rendered.text;
    },
  };
}
