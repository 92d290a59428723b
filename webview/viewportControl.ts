import { ensureVisible, fitTransform, IDENTITY, panBy, transformCss, zoomAt, type Rect, type Size, type ViewTransform } from './zoomPan';

// Zoom and pan of the graph viewport: Ctrl/⌘ + wheel or pinch zooms at the pointer, wheel and drag
// on the background pan, + / - / 0 zoom in, out and fit. While `autoFit` is on (until the person
// zooms or pans) every new layout is fitted to the view. Below LOD_ZOOM the nodes' small text is
// hidden (unreadable anyway), which also keeps style and layout of big plans cheap.

/**
 * Below this zoom, nodes show their status, id and step text in large type instead of their detail
 * parts: at 0.6 the detail text is about 8 px on screen, the large text still about 14 px.
 */
export const LOD_ZOOM = 0.6;

export class ViewportControl {
  private t: ViewTransform = IDENTITY;
  private content: Size = { width: 0, height: 0 };
  autoFit = true;
  private drag: { id: number; x: number; y: number; moved: boolean } | undefined;
  /** Viewport size from the ResizeObserver, so fitting a new layout never forces a synchronous layout. */
  private knownSize: Size | undefined;

  constructor(
    private readonly viewport: HTMLElement,
    private readonly world: HTMLElement,
    private readonly changed: () => void,
    /** Called when the zoom crosses LOD_ZOOM (`low`: nodes show their status, id and text in large type). */
    private readonly lodChanged: (low: boolean) => void = () => undefined,
  ) {
    viewport.addEventListener('wheel', (ev) => this.onWheel(ev), { passive: false });
    viewport.addEventListener('pointerdown', (ev) => this.onPointerDown(ev));
    viewport.addEventListener('pointermove', (ev) => this.onPointerMove(ev));
    const end = (ev: PointerEvent): void => {
      if (this.drag?.id === ev.pointerId) this.drag = undefined;
      viewport.classList.remove('panning');
    };
    viewport.addEventListener('pointerup', end);
    viewport.addEventListener('pointercancel', end);
    viewport.addEventListener('keydown', (ev) => this.onKeyDown(ev));
    new ResizeObserver((entries) => {
      const box = entries[entries.length - 1]?.contentRect;
      if (box) this.knownSize = { width: box.width, height: box.height };
      if (this.autoFit) this.fit(false);
    }).observe(viewport);
  }

  get transform(): ViewTransform {
    return this.t;
  }

  /** New layout size; refits if the view follows the graph. */
  setContent(size: Size): void {
    this.content = size;
    if (this.autoFit) this.fit(false);
  }

  set(t: ViewTransform, byUser = true): void {
    this.t = t;
    if (byUser) this.autoFit = false;
    this.apply();
    this.changed();
  }

  fit(byUser = true): void {
    this.autoFit = true;
    this.t = fitTransform(this.content, this.size());
    this.apply();
    if (byUser) this.changed();
  }

  private apply(): void {
    this.world.style.transform = transformCss(this.t);
    const low = this.t.k < LOD_ZOOM;
    if (this.world.classList.contains('lod-low') === low) return;
    this.world.classList.toggle('lod-low', low);
    this.lodChanged(low);
  }

  zoomBy(factor: number): void {
    const s = this.size();
    this.set(zoomAt(this.t, factor, s.width / 2, s.height / 2));
  }

  /** Pans just enough to show a node (keyboard navigation). */
  reveal(rect: Rect): void {
    const next = ensureVisible(this.t, rect, this.size());
    if (next.x !== this.t.x || next.y !== this.t.y) this.set(next, false);
  }

  private size(): Size {
    if (this.knownSize && this.knownSize.width > 0) return this.knownSize;
    return { width: this.viewport.clientWidth, height: this.viewport.clientHeight };
  }

  private onWheel(ev: WheelEvent): void {
    ev.preventDefault();
    if (ev.ctrlKey || ev.metaKey) {
      const r = this.viewport.getBoundingClientRect();
      this.set(zoomAt(this.t, Math.exp(-ev.deltaY * 0.002), ev.clientX - r.left, ev.clientY - r.top));
    } else {
      this.set(panBy(this.t, -ev.deltaX, -ev.deltaY));
    }
  }

  private onPointerDown(ev: PointerEvent): void {
    // Drag only on the background, so clicks on nodes and buttons keep working.
    if (ev.button !== 0 || (ev.target as HTMLElement).closest('.node, button, .toolbar')) return;
    this.drag = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, moved: false };
    this.viewport.setPointerCapture(ev.pointerId);
    this.viewport.classList.add('panning');
  }

  private onPointerMove(ev: PointerEvent): void {
    if (!this.drag || this.drag.id !== ev.pointerId) return;
    const dx = ev.clientX - this.drag.x;
    const dy = ev.clientY - this.drag.y;
    this.drag.x = ev.clientX;
    this.drag.y = ev.clientY;
    this.drag.moved = true;
    this.set(panBy(this.t, dx, dy));
  }

  private onKeyDown(ev: KeyboardEvent): void {
    if ((ev.target as HTMLElement).closest('input, textarea, button')) return;
    if (ev.key === '+' || ev.key === '=') this.zoomBy(1.2);
    else if (ev.key === '-' || ev.key === '_') this.zoomBy(1 / 1.2);
    else if (ev.key === '0') this.fit();
    else return;
    ev.preventDefault();
  }
}
