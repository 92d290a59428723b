import type { ToolContext } from '../tools/toolTypes';
import type { RenderedResult } from './resultText';

/**
 * Reports a rendered MCP result for the trace (its raw JSON without binary data, and each image
 * by type, size and sha256, never its bytes) and hands its images to the model's image channel.
 */
export function reportResult(context: ToolContext, origin: { server: string; tool: string }, rendered: RenderedResult): void {
  context.reportRaw?.({
    ...origin,
    isError: rendered.isError,
    raw: rendered.rawJson,
    ...(rendered.imageRecords.length > 0 ? { images: rendered.imageRecords } : {}),
  });
  if (rendered.images.length > 0 && context.images?.accepted) context.images.attach(rendered.images);
}
