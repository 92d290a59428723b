// Pure zoom/pan math for the graph viewport. A transform maps layout pixels to viewport pixels:
// screen = layout * k + (x, y). The DOM side (viewportControl.ts) only feeds events in.

export interface ViewTransform {
  k: number;
  x: number;
  y: number;
}

export interface Size {
  width: number;
  height: number;
}

export interface Rect extends Size {
  x: number;
  y: number;
}

export const MIN_ZOOM = 0.1;
export const MAX_ZOOM = 2.5;
export const IDENTITY: ViewTransform = { k: 1, x: 0, y: 0 };

export function clampZoom(k: number): number {
  if (!Number.isFinite(k)) return 1;
  return Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, k));
}

/** Scales and centres `content` in `viewport`; never zooms in past `maxK` so small plans stay readable size. */
export function fitTransform(content: Size, viewport: Size, padding = 24, maxK = 1): ViewTransform {
  if (content.width <= 0 || content.height <= 0 || viewport.width <= 0 || viewport.height <= 0) return { ...IDENTITY, x: padding, y: padding };
  const availW = Math.max(1, viewport.width - 2 * padding);
  const availH = Math.max(1, viewport.height - 2 * padding);
  const k = clampZoom(Math.min(maxK, availW / content.width, availH / content.height));
  return { k, x: (viewport.width - content.width * k) / 2, y: Math.max(padding, (viewport.height - content.height * k) / 2) };
}

/** Zooms by `factor` keeping the viewport point (px, py) fixed under the cursor. */
export function zoomAt(t: ViewTransform, factor: number, px: number, py: number): ViewTransform {
  const k = clampZoom(t.k * factor);
  const ratio = k / t.k;
  return { k, x: px - (px - t.x) * ratio, y: py - (py - t.y) * ratio };
}

export function panBy(t: ViewTransform, dx: number, dy: number): ViewTransform {
  return { k: t.k, x: t.x + dx, y: t.y + dy };
}

/** The smallest pan that brings `rect` (layout pixels) inside the viewport with `margin`; centres it if it cannot fit. */
export function ensureVisible(t: ViewTransform, rect: Rect, viewport: Size, margin = 24): ViewTransform {
  const left = rect.x * t.k + t.x;
  const top = rect.y * t.k + t.y;
  const right = left + rect.width * t.k;
  const bottom = top + rect.height * t.k;
  const axis = (lo: number, hi: number, size: number): number => {
    if (hi - lo > size - 2 * margin) return size / 2 - (lo + hi) / 2;
    if (lo < margin) return margin - lo;
    if (hi > size - margin) return size - margin - hi;
    return 0;
  };
  return panBy(t, axis(left, right, viewport.width), axis(top, bottom, viewport.height));
}

/** The CSS transform for the world layer. */
export function transformCss(t: ViewTransform): string {
  return `translate(${t.x.toFixed(1)}px, ${t.y.toFixed(1)}px) scale(${t.k.toFixed(4)})`;
}

/** Accepts a transform restored from vscode.getState only if it is sane. */
export function sanitizeTransform(value: unknown): ViewTransform | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { k, x, y } = value as Record<string, unknown>;
  if (typeof k !== 'number' || typeof x !== 'number' || typeof y !== 'number') return undefined;
  if (![k, x, y].every(Number.isFinite)) return undefined;
  return { k: clampZoom(k), x, y };
}
