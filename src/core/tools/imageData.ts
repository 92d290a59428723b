import { createHash } from 'node:crypto';
import { MAX_IMAGE_BYTES, type ToolImage } from './toolImages';

// An image a tool sent, checked before it may reach the model: an endpoint refuses the whole
// request for one image it cannot decode, so only valid base64 whose bytes are the PNG, JPEG, GIF
// or WebP file the declared type says (the types every image-taking endpoint accepts) is sent.

/** The image types sent to a model, with the bytes each file starts with. */
const SIGNATURES: ReadonlyArray<{ mimeType: string; matches(bytes: Buffer): boolean }> = [
  { mimeType: 'image/png', matches: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { mimeType: 'image/jpeg', matches: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { mimeType: 'image/gif', matches: (b) => /^GIF8[79]a/.test(b.subarray(0, 6).toString('latin1')) },
  { mimeType: 'image/webp', matches: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP' },
];

export const SENDABLE_IMAGE_TYPES = 'PNG, JPEG, GIF and WebP';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export type ImageCheck = { ok: true; image: ToolImage } | { ok: false; bytes: number; sha256?: string; problem: string };

/** Decoded size of a base64 text, as far as it can be told without decoding it. */
export function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const clean = data.replace(/\s/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/** Checks `data` (base64) declared as `mimeType`; a problem is a short phrase ("not valid base64"). */
export function checkImage(mimeType: unknown, data: unknown): ImageCheck {
  const declared = typeof mimeType === 'string' ? mimeType.trim().toLowerCase() : '';
  if (typeof data !== 'string') return { ok: false, bytes: 0, problem: 'it has no data' };
  const clean = data.replace(/\s/g, '');
  const bytes = base64Bytes(clean);
  if (bytes > MAX_IMAGE_BYTES) return { ok: false, bytes, problem: `it is larger than the ${MAX_IMAGE_BYTES / 1024 / 1024} MiB sent per image` };
  if (!BASE64.test(clean)) return { ok: false, bytes, problem: 'its data is not valid base64' };
  const decoded = Buffer.from(clean, 'base64');
  const sha256 = createHash('sha256').update(decoded).digest('hex');
  const kind = SIGNATURES.find((signature) => signature.matches(decoded));
  const declaredJpeg = declared === 'image/jpg' ? 'image/jpeg' : declared;
  if (!SIGNATURES.some((signature) => signature.mimeType === declaredJpeg))
    return { ok: false, bytes: decoded.length, sha256, problem: `only ${SENDABLE_IMAGE_TYPES} images are sent to the model` };
  if (kind?.mimeType !== declaredJpeg)
    return { ok: false, bytes: decoded.length, sha256, problem: `its data is not a ${declaredJpeg.slice(6).toUpperCase()} file` };
  return { ok: true, image: { mimeType: kind.mimeType, data: clean, bytes: decoded.length, sha256 } };
}
