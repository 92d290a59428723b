import { clipParts, oneLine } from '../src/core/text/clip';
import { auditsOfKind } from '../src/core/plan/stepAudits';

export { oneLine };

// Pure text formatting for the panel. Everything here returns plain strings that the DOM code puts
// into textContent, never HTML.

/** Pretty-prints a JSON string (also double-encoded JSON); returns the input unchanged if it is not JSON. */
export function prettyJson(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  // Some models double-encode arguments: a JSON string whose content is JSON.
  if (typeof value === 'string') {
    try {
      const inner: unknown = JSON.parse(value);
      if (inner !== null && typeof inner === 'object') value = inner;
    } catch {
      /* a plain JSON string */
    }
  }
  return JSON.stringify(value, null, 2);
}

/** Pretty-prints any value as JSON (audits); falls back to String() for unserialisable values. */
export function prettyValue(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

export interface Truncated {
  text: string;
  truncated: boolean;
  /** Characters left out. */
  omitted: number;
}

/** Cuts `text` to at most `max` characters (code points are not split), saying how much was left out. */
export function truncate(text: string, max: number): Truncated {
  const { head, omitted } = clipParts(text, max);
  return omitted === 0 ? { text, truncated: false, omitted } : { text: `${head}…`, truncated: true, omitted };
}

/** 850 ms, 1.2 s, 2 m 05 s, 1 h 02 m. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const totalS = Math.floor(s);
  const m = Math.floor(totalS / 60);
  if (m < 60) return `${m} m ${String(totalS % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} m`;
}

/** Clock-style elapsed time: 0:42, 12:03, 1:02:03. */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor((Number.isFinite(ms) ? ms : 0) / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** 950, 12.3k, 4.5M. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** A time relative to the run start: +0.35 s, +1 m 05 s. Timezone independent. */
export function formatOffset(time: number | undefined, start: number | undefined): string {
  if (time === undefined) return '–';
  if (start === undefined) return new Date(time).toISOString().slice(11, 23);
  return `+${formatDuration(time - start)}`;
}

/** Human words for machine reasons: approval_denied → approval denied. */
export function humanize(reason: string): string {
  return reason.replace(/[_-]+/g, ' ').trim();
}

/** The MCP server and tool a call went to (recorded in its audit, docs/design.md, “MCP tools”). */
export interface McpCallOrigin {
  server: string;
  tool: string;
  annotations?: Record<string, unknown>;
}

export function mcpOrigin(call: { audit?: Record<string, unknown> }): McpCallOrigin | undefined {
  const mcp = call.audit?.mcp as Record<string, unknown> | undefined;
  if (!mcp || typeof mcp.server !== 'string' || typeof mcp.tool !== 'string') return undefined;
  const annotations = mcp.annotations && typeof mcp.annotations === 'object' ? (mcp.annotations as Record<string, unknown>) : undefined;
  return { server: mcp.server, tool: mcp.tool, ...(annotations ? { annotations } : {}) };
}

/** `everything › get-sum`: how a chip names an MCP call. */
export function mcpLabel(origin: McpCallOrigin): string {
  return `${origin.server} › ${origin.tool}`;
}

/** The annotations in words: `title "Add", read-only, not destructive`. */
export function mcpAnnotationText(annotations: Record<string, unknown> | undefined): string {
  if (!annotations) return 'none';
  const words: string[] = [];
  if (typeof annotations.title === 'string') words.push(`title “${annotations.title}”`);
  const flags: Array<[string, string, string]> = [
    ['readOnlyHint', 'read-only', 'may change things'],
    ['destructiveHint', 'destructive', 'not destructive'],
    ['idempotentHint', 'idempotent', 'not idempotent'],
    ['openWorldHint', 'open world', 'closed world'],
  ];
  for (const [key, yes, no] of flags) if (typeof annotations[key] === 'boolean') words.push(annotations[key] ? yes : no);
  return words.length > 0 ? words.join(', ') : 'none';
}

/** The raw result of an MCP call (its `mcp_result` audit), as recorded. */
export function mcpRawResult(audits: ReadonlyArray<Record<string, unknown>>, callId: string): string | undefined {
  return auditsOfKind(audits, 'mcp_result').find((a) => a.callId === callId)?.raw;
}
