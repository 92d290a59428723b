import { auditsOfKind } from '../src/core/plan/stepAudits';

// The images an MCP call returned, as the call's details list them (docs/design.md, “MCP tools”,
// results): type, size, whether they reached the model (or why not) and a short sha256. The trace
// holds no image bytes, so neither does the panel; fields that are not what they should be (a
// trace made by hand) are left out rather than guessed.

const MAX_LISTED = 20;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One line per image of the call's `mcp_result` audit; none when it had no images. */
export function mcpImageLines(audits: ReadonlyArray<Record<string, unknown>>, callId: string): string[] {
  const audit = auditsOfKind(audits, 'mcp_result').find((a) => a.callId === callId);
  const images = Array.isArray(audit?.images) ? audit.images.filter(isRecord) : [];
  const lines = images.slice(0, MAX_LISTED).map((image) => {
    const type = typeof image.mimeType === 'string' ? image.mimeType.slice(0, 100) : 'unknown type';
    const size = typeof image.bytes === 'number' && Number.isFinite(image.bytes) ? `${image.bytes.toLocaleString('en-US')} bytes` : 'unknown size';
    const fate = image.sent === true ? 'sent to the model' : `not sent${typeof image.reason === 'string' ? `: ${image.reason.slice(0, 300)}` : ''}`;
    const hash = typeof image.sha256 === 'string' && /^[0-9a-f]{64}$/.test(image.sha256) ? ` · sha256 ${image.sha256.slice(0, 12)}…` : '';
    return `${type}, ${size}, ${fate}${hash}`;
  });
  if (images.length > MAX_LISTED) lines.push(`… and ${images.length - MAX_LISTED} more`);
  return lines;
}
