import { capOutput } from '../tools/outputCap';
import { isRecord } from '../text/isRecord';

// What the model sees of an MCP tool result (docs/design.md, “MCP tools”): text content as is; images,
// audio and embedded resources as short markers (the model gets no binary data); structured
// content as JSON when the server sent no text; `isError` makes the call an error result. The raw
// result, with binary data elided and capped, is kept for the trace and the details pane.

/** The largest raw result (JSON) kept for the trace. */
export const MAX_RAW_RESULT_BYTES = 16_384;

export interface RenderedResult {
  text: string;
  isError: boolean;
  /** The result as JSON, binary data replaced by its size, capped at MAX_RAW_RESULT_BYTES. */
  rawJson: string;
}

type Block = Record<string, unknown>;

/** A field that should be text, as text (anything else as the fallback). */
function textOf(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : fallback;
}

function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.replace(/\s/g, '').length * 3) / 4) - padding);
}

function describeResource(resource: unknown): string {
  if (!isRecord(resource)) return '[embedded resource]';
  const mime = typeof resource.mimeType === 'string' ? resource.mimeType : undefined;
  const size =
    typeof resource.text === 'string'
      ? `${resource.text.length} characters`
      : typeof resource.blob === 'string'
        ? `${base64Bytes(resource.blob)} bytes`
        : undefined;
  const detail = [mime, size].filter(Boolean).join(', ');
  return `[embedded resource ${textOf(resource.uri, '(no uri)')}${detail ? ` (${detail})` : ''}]`;
}

function renderBlock(block: Block): string {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : '';
    case 'image':
    case 'audio':
      return `[${block.type} ${textOf(block.mimeType, 'unknown type')}, ${base64Bytes(block.data)} bytes]`;
    case 'resource':
      return describeResource(block.resource);
    case 'resource_link':
      return `[resource link ${textOf(block.uri, '(no uri)')}${typeof block.name === 'string' ? ` (${block.name})` : ''}]`;
    default:
      return `[${textOf(block.type, 'unknown')} content]`;
  }
}

/** The result with every base64 payload replaced by a note of its size. */
function withoutBinary(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutBinary);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = (key === 'data' || key === 'blob') && typeof item === 'string' ? `(${base64Bytes(item)} bytes of base64 data left out)` : withoutBinary(item);
  }
  return out;
}

/** Renders a `tools/call` result for the model and the trace. */
export function renderToolResult(result: unknown): RenderedResult {
  const record = isRecord(result) ? result : {};
  const blocks = Array.isArray(record.content) ? record.content.filter(isRecord) : [];
  let text = blocks
    .map(renderBlock)
    .filter((part) => part !== '')
    .join('\n');
  if (text === '' && record.structuredContent !== undefined) text = JSON.stringify(record.structuredContent);
  if (text === '' && 'toolResult' in record) text = typeof record.toolResult === 'string' ? record.toolResult : JSON.stringify(record.toolResult); // protocol 2024-10-07 servers
  return { text, isError: record.isError === true, rawJson: capOutput(JSON.stringify(withoutBinary(result)) ?? 'null', MAX_RAW_RESULT_BYTES) };
}
