import type { ApprovalRequestMessage } from '../src/protocol/messages';
import { el } from './dom';
import { EdgeLayer } from './edgeLayer';
import { isNavKey, nextNode, readingOrder } from './keyboard';
import { NODE_HEIGHT, NODE_WIDTH, type PlanLayout } from './layout';
import { NodeView } from './nodeView';
import type { StepView } from './stepView';

// The DAG on screen: HTML nodes (nodeView.ts: real buttons, text wrapping, focus) positioned over an
// SVG edge layer (edgeLayer.ts). `setLayout` runs only when the structure changed; `updateNode`
// restyles one node in place (classes and text), so status changes never re-layout. Positions are
// set through the CSSOM, which the panel's CSP allows (it blocks style attributes, not element.style).

export interface GraphHandlers {
  select(stepId: string): void;
  clearSelection(): void;
  approve(approval: ApprovalRequestMessage, source: HTMLButtonElement): void;
  deny(approval: ApprovalRequestMessage, source: HTMLButtonElement): void;
  retry(stepId: string, source: HTMLButtonElement): void;
  /** Keyboard focus moved to a node (the viewport pans it into view). */
  focused(stepId: string): void;
}

export class GraphView {
  /** The layer zoom/pan transforms. */
  readonly world: HTMLDivElement;
  readonly nodeLayer: HTMLDivElement;
  private readonly edges = new EdgeLayer();
  private readonly nodes = new Map<string, NodeView>();
  /** Whether nodes show their detail parts (off while zoomed out; see nodeView.ts). */
  private detailed = true;
  private layoutValue: PlanLayout | undefined;
  private selectedId: string | undefined;
  private focusId: string | undefined;

  constructor(
    readonly viewport: HTMLElement,
    private readonly handlers: GraphHandlers,
  ) {
    this.world = el('div', 'world');
    this.world.style.setProperty('--node-w', `${NODE_WIDTH}px`);
    this.world.style.setProperty('--node-h', `${NODE_HEIGHT}px`);
    this.nodeLayer = el('div', 'nodes');
    this.nodeLayer.setAttribute('role', 'group');
    this.nodeLayer.setAttribute('aria-label', 'Plan steps. Arrow keys move between steps, Enter opens details.');
    this.world.append(this.edges.root, this.nodeLayer);
    viewport.append(this.world);
    this.nodeLayer.addEventListener('click', (ev) => this.onClick(ev));
    this.nodeLayer.addEventListener('keydown', (ev) => this.onKeyDown(ev));
    this.nodeLayer.addEventListener('focusin', (ev) => {
      const node = (ev.target as HTMLElement).closest<HTMLElement>('.node');
      if (node?.dataset.stepId) this.setFocusable(node.dataset.stepId);
    });
  }

  get layout(): PlanLayout | undefined {
    return this.layoutValue;
  }

  get nodeCount(): number {
    return this.nodes.size;
  }

  /** Places every node and edge of a new layout; reuses existing node elements (keeps focus). */
  setLayout(layout: PlanLayout, views: Iterable<StepView>): void {
    this.layoutValue = layout;
    const keep = new Set<string>();
    for (const view of views) {
      const pos = layout.nodes.get(view.id);
      if (!pos) continue;
      keep.add(view.id);
      let node = this.nodes.get(view.id);
      if (!node) {
        node = new NodeView(view.id, this.detailed, this.handlers);
        this.nodes.set(view.id, node);
        this.nodeLayer.append(node.slot);
      }
      node.slot.style.transform = `translate(${pos.x}px, ${pos.y}px)`;
      // The edges are redrawn below with every status, so no per-node edge update here.
      node.update(view, view.id === this.selectedId);
    }
    for (const [id, node] of this.nodes) {
      if (keep.has(id)) continue;
      node.slot.remove();
      this.nodes.delete(id);
    }
    this.edges.setEdges(
      layout,
      (id) => this.nodes.get(id)?.status || undefined,
      (id) => this.nodes.get(id)?.root.classList.contains('replaced') ?? false,
    );
    if (this.focusId === undefined || !this.nodes.has(this.focusId)) {
      const first = readingOrder(layout.nodes.values())[0];
      this.setFocusable(this.selectedId && this.nodes.has(this.selectedId) ? this.selectedId : first?.id);
    }
  }

  /** Restyles one node in place: classes, texts, chips, actions. No layout. */
  updateNode(view: StepView): void {
    const node = this.nodes.get(view.id);
    if (!node) return;
    const before = node.status;
    node.update(view, view.id === this.selectedId);
    if (view.status !== before) this.edges.setTargetStatus(view.id, view.status);
  }

  /** Shows or hides the nodes' detail parts (the viewport turns them off while zoomed out). */
  setDetail(on: boolean): void {
    if (on === this.detailed) return;
    this.detailed = on;
    // Parts once built stay (the zoomed-out style hides them); only missing ones are built.
    if (on) for (const node of this.nodes.values()) node.showDetail();
  }

  setSelected(stepId: string | undefined): void {
    const before = this.selectedId;
    this.selectedId = stepId;
    for (const id of [before, stepId]) {
      const node = id !== undefined ? this.nodes.get(id) : undefined;
      node?.setSelected(id === stepId);
    }
    if (stepId !== undefined && this.nodes.has(stepId)) this.setFocusable(stepId);
  }

  /** Moves keyboard focus to a node. */
  focusNode(stepId: string): void {
    const node = this.nodes.get(stepId);
    if (!node) return;
    this.setFocusable(stepId);
    node.root.focus({ preventScroll: true });
    this.handlers.focused(stepId);
  }

  hasNode(stepId: string): boolean {
    return this.nodes.has(stepId);
  }

  private setFocusable(stepId: string | undefined): void {
    if (stepId === this.focusId) return;
    const old = this.focusId !== undefined ? this.nodes.get(this.focusId) : undefined;
    if (old) old.root.tabIndex = -1;
    this.focusId = stepId;
    const node = stepId !== undefined ? this.nodes.get(stepId) : undefined;
    if (node) node.root.tabIndex = 0;
  }

  private onClick(ev: MouseEvent): void {
    const target = ev.target as HTMLElement;
    if (target.closest('button')) return;
    const node = target.closest<HTMLElement>('.node');
    if (node?.dataset.stepId) this.handlers.select(node.dataset.stepId);
  }

  private onKeyDown(ev: KeyboardEvent): void {
    const target = ev.target as HTMLElement;
    const node = target.closest<HTMLElement>('.node');
    const stepId = node?.dataset.stepId;
    if (!node || !stepId) return;
    if (target !== node) {
      // Inside a node's buttons: Escape returns to the node, everything else is the button's.
      if (ev.key === 'Escape') {
        ev.preventDefault();
        node.focus();
      }
      return;
    }
    if (isNavKey(ev.key) && this.layoutValue) {
      ev.preventDefault();
      const next = nextNode(this.layoutValue.nodes, stepId, ev.key);
      if (next) this.focusNode(next);
    } else if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault();
      this.handlers.select(stepId);
    } else if (ev.key === 'Escape') {
      ev.preventDefault();
      this.handlers.clearSelection();
    }
  }
}
