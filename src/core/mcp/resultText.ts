import { capOutput } from '../tools/outputCap';
import { isRecord } from '../text/isRecord';
import { base64Bytes, checkImage } from '../tools/imageData';
import type { ImageChannel, ToolImage } from '../tools/toolImages';

// What the model sees of an MCP tool result (docs/design.md, “MCP tools”): text content as is;
// images sent as images when the model takes them (the result's text says where they went) and
// otherwise described in a sentence that says why they were not sent; audio and binary resources
// described; text resources inline, clipped; structured content as JSON when the server sent no
// text; `isError` makes the call an error result. The raw result, with binary data elided and
// capped, and each image's type, size and sha256 are kept for the trace (never the bytes).

/** The largest raw result (JSON) kept for the trace. */
export const MAX_RAW_RESULT_BYTES = 16_384;
/** The most of one text resource embedded in a tool result put into it (a read resource is capped like any tool output). */
export const MAX_INLINE_RESOURCE_BYTES = 8_192;

/** One image of a result as the trace records it. */
export interface ImageRecord {
  mimeType: string;
  bytes: number;
  sha256?: string;
  sent: boolean;
  /** Why it was not sent. */
  reason?: string;
}

export interface RenderedResult {
  text: string;
  isError: boolean;
  /** The result as JSON, binary data replaced by its size, capped at MAX_RAW_RESULT_BYTES. */
  rawJson: string;
  /** The images to send after the tool results (only when the channel accepts images). */
  images: ToolImage[];
  imageRecords: ImageRecord[];
}

export interface RenderOptions {
  /** Whether the model takes images; without one, images are described as not sent. */
  images?: ImageChannel;
  /** The registry name of the server's read_resource tool, named in resource links. */
  readResourceTool?: string;
}

type Block = Record<string, unknown>;

const NO_CHANNEL: ImageChannel = { accepted: false, reason: 'this call has no way to send images to the model' };

/** A field that should be text, as text (anything else as the fallback). */
function textOf(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : fallback;
}

/** Collects a result's images while its blocks are rendered. */
class ImageCollector {
  readonly sent: ToolImage[] = [];
  readonly recorded: ImageRecord[] = [];
  constructor(private readonly channel: ImageChannel) {}

  /** The text standing for one image: where it went, or why it was not sent. */
  render(label: string, mimeType: unknown, data: unknown): string {
    const declared = textOf(mimeType, 'unknown type');
    if (!this.channel.accepted) {
      this.recorded.push({ mimeType: declared, bytes: base64Bytes(data), sent: false, reason: this.channel.reason });
      return `[${label} ${declared}, ${base64Bytes(data)} bytes: not shown, this model does not take images here (${this.channel.reason})]`;
    }
    const checked = checkImage(mimeType, data);
    if (!checked.ok) {
      this.recorded.push({
        mimeType: declared,
        bytes: checked.bytes,
        ...(checked.sha256 ? { sha256: checked.sha256 } : {}),
        sent: false,
        reason: checked.problem,
      });
      return `[${label} ${declared}, ${checked.bytes} bytes: not sent to the model, ${checked.problem}]`;
    }
    const { image } = checked;
    this.sent.push(image);
    this.recorded.push({ mimeType: image.mimeType, bytes: image.bytes, sha256: image.sha256, sent: true });
    return `[${label} ${image.mimeType}, ${image.bytes} bytes: sent as image ${this.sent.length} of this call, in the message after the tool results]`;
  }
}

/** One resource's contents (`{uri, mimeType, text | blob}`): text inline (clipped at `maxTextBytes`), an image as an image, other binary data described. */
function renderResourceContents(resource: unknown, label: string, images: ImageCollector, maxTextBytes = MAX_INLINE_RESOURCE_BYTES): string {
  if (!isRecord(resource)) return `[${label}]`;
  const uri = textOf(resource.uri, '(no uri)');
  const mime = typeof resource.mimeType === 'string' ? resource.mimeType : undefined;
  if (typeof resource.text === 'string') {
    const head = `[${label} ${uri} (${[mime, `${resource.text.length} characters`].filter(Boolean).join(', ')})]`;
    return resource.text === '' ? head : `${head}\n${capOutput(resource.text, maxTextBytes)}`;
  }
  if (typeof resource.blob === 'string') {
    if (mime?.toLowerCase().startsWith('image/')) return images.render(`${label} ${uri}: image`, mime, resource.blob);
    return `[${label} ${uri} (${[mime, `${base64Bytes(resource.blob)} bytes of binary data`].filter(Boolean).join(', ')}), not shown: binary content is not sent to the model]`;
  }
  return `[${label} ${uri}${mime ? ` (${mime})` : ''}, empty]`;
}

function renderBlock(block: Block, images: ImageCollector, options: RenderOptions): string {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : '';
    case 'image':
      return images.render('image', block.mimeType, block.data);
    case 'audio':
      return `[audio ${textOf(block.mimeType, 'unknown type')}, ${base64Bytes(block.data)} bytes: not sent, Cortex sends no audio to the model]`;
    case 'resource':
      return renderResourceContents(block.resource, 'embedded resource', images);
    case 'resource_link': {
      const details = [typeof block.name === 'string' ? block.name : undefined, typeof block.mimeType === 'string' ? block.mimeType : undefined].filter(
        Boolean,
      );
      const read = options.readResourceTool ? `; read it with ${options.readResourceTool}` : '';
      return `[resource link ${textOf(block.uri, '(no uri)')}${details.length ? ` (${details.join(', ')})` : ''}${read}]`;
    }
    default:
      return `[${textOf(block.type, 'unknown')} content]`;
  }
}

/** The result with every base64 payload replaced by a note of its size. */
export function withoutBinary(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutBinary);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = (key === 'data' || key === 'blob') && typeof item === 'string' ? `(${base64Bytes(item)} bytes of base64 data left out)` : withoutBinary(item);
  }
  return out;
}

/** Renders a `tools/call` result for the model and the trace. */
export function renderToolResult(result: unknown, options: RenderOptions = {}): RenderedResult {
  const record = isRecord(result) ? result : {};
  const blocks = Array.isArray(record.content) ? record.content.filter(isRecord) : [];
  const images = new ImageCollector(options.images ?? NO_CHANNEL);
  let text = blocks
    .map((block) => renderBlock(block, images, options))
    .filter((part) => part !== '')
    .join('\n');
  if (text === '' && record.structuredContent !== undefined) text = JSON.stringify(record.structuredContent);
  if (text === '' && 'toolResult' in record) text = typeof record.toolResult === 'string' ? record.toolResult : JSON.stringify(record.toolResult); // protocol 2024-10-07 servers
  return {
    text,
    isError: record.isError === true,
    rawJson: capOutput(JSON.stringify(withoutBinary(result)) ?? 'null', MAX_RAW_RESULT_BYTES),
    images: images.sent,
    imageRecords: images.recorded,
  };
}

/** Renders a `resources/read` result (its `contents`) for the model and the trace; its text is capped later like every tool output. */
export function renderReadResult(result: unknown, options: RenderOptions = {}): RenderedResult {
  const record = isRecord(result) ? result : {};
  const contents = Array.isArray(record.contents) ? record.contents : [];
  const images = new ImageCollector(options.images ?? NO_CHANNEL);
  const text =
    contents.length === 0
      ? '(the resource has no contents)'
      : contents.map((item) => renderResourceContents(item, 'resource', images, Number.POSITIVE_INFINITY)).join('\n');
  return {
    text,
    isError: false,
    rawJson: capOutput(JSON.stringify(withoutBinary(result)) ?? 'null', MAX_RAW_RESULT_BYTES),
    images: images.sent,
    imageRecords: images.recorded,
  };
}
