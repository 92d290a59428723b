import type { StepStatus } from '../src/core/plan/planTypes';
import type { ApprovalRequestMessage } from '../src/protocol/messages';
import { button, el, setAttr, setText } from './dom';
import { EdgeLayer } from './edgeLayer';
import { icon, setIcon } from './icons';
import { isNavKey, nextNode, readingOrder } from './keyboard';
import { NODE_HEIGHT, NODE_WIDTH, type PlanLayout } from './layout';
import type { StepView } from './stepView';

// The DAG on screen: HTML nodes (real buttons, text wrapping, focus) positioned over an SVG edge
// layer (edgeLayer.ts). `setLayout` runs only when the structure changed; `updateNode` restyles one node in place
// (classes and text), so status changes never re-layout. Positions are set through the CSSOM, which
// the panel's CSP allows (it blocks style attributes, not element.style).

export interface GraphHandlers {
  select(stepId: string): void;
  clearSelection(): void;
  approve(approval: ApprovalRequestMessage, source: HTMLButtonElement): void;
  deny(approval: ApprovalRequestMessage, source: HTMLButtonElement): void;
  retry(stepId: string, source: HTMLButtonElement): void;
  /** Keyboard focus moved to a node (the viewport pans it into view). */
  focused(stepId: string): void;
}

interface NodeRefs {
  /** Positioned wrapper of the node (see createNode). */
  slot: HTMLDivElement;
  root: HTMLDivElement;
  head: HTMLDivElement;
  glyph: HTMLSpanElement;
  tags: HTMLSpanElement;
  desc: HTMLDivElement;
  meta: HTMLDivElement;
  chips: HTMLDivElement;
  actions: HTMLDivElement;
  sig: { tags: string; chips: string; actions: string; status: StepStatus | ''; classes: string };
}

export class GraphView {
  /** The layer zoom/pan transforms. */
  readonly world: HTMLDivElement;
  readonly nodeLayer: HTMLDivElement;
  private readonly edges = new EdgeLayer();
  private readonly nodes = new Map<string, NodeRefs>();
  private layoutValue: PlanLayout | undefined;
  private selectedId: string | undefined;
  private focusId: string | undefined;
  private template: HTMLDivElement | undefined;

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
      let refs = this.nodes.get(view.id);
      if (!refs) {
        refs = this.createNode(view.id);
        this.nodes.set(view.id, refs);
        this.nodeLayer.append(refs.slot);
      }
      refs.slot.style.transform = `translate(${pos.x}px, ${pos.y}px)`;
      this.updateNode(view);
    }
    for (const [id, refs] of this.nodes) {
      if (keep.has(id)) continue;
      refs.slot.remove();
      this.nodes.delete(id);
    }
    this.edges.setEdges(
      layout,
      (id) => this.nodes.get(id)?.sig.status || undefined,
      (id) => this.nodes.get(id)?.root.classList.contains('replaced') ?? false,
    );
    if (this.focusId === undefined || !this.nodes.has(this.focusId)) {
      const first = readingOrder(layout.nodes.values())[0];
      this.setFocusable(this.selectedId && this.nodes.has(this.selectedId) ? this.selectedId : first?.id);
    }
  }

  /** Restyles one node in place: classes, texts, chips, actions. No layout. */
  updateNode(view: StepView): void {
    const refs = this.nodes.get(view.id);
    if (!refs) return;
    const classes = `node status-${view.status}${view.replaced ? ' replaced' : ''}${view.isNew ? ' is-new' : ''}${view.approvals.length ? ' awaiting' : ''}${view.id === this.selectedId ? ' selected' : ''}`;
    if (refs.sig.classes !== classes) {
      refs.root.className = classes;
      refs.sig.classes = classes;
    }
    setAttr(refs.root, 'aria-label', view.ariaLabel);
    setAttr(refs.root, 'aria-current', view.id === this.selectedId ? 'true' : undefined);
    setIcon(refs.glyph, view.icon, 'node-glyph');
    setAttr(refs.glyph, 'title', view.statusLabel);
    setText(refs.desc, view.description);
    // Full text on hover, also when zoomed out (only the head is visible then).
    setAttr(refs.desc, 'title', view.description);
    setAttr(refs.head, 'title', view.description);
    setText(refs.meta, view.meta);
    setAttr(refs.meta, 'title', view.meta || undefined);
    if (refs.sig.status !== view.status) {
      refs.sig.status = view.status;
      this.edges.setTargetStatus(view.id, view.status);
    }
    const tagSig = view.tags.map((t) => `${t.kind}:${t.text}:${t.title}`).join('|');
    if (tagSig !== refs.sig.tags) {
      refs.sig.tags = tagSig;
      refs.tags.replaceChildren(
        ...view.tags.map((t) => {
          const tag = el('span', `tag tag-${t.kind}`, t.text);
          tag.title = t.title;
          return tag;
        }),
      );
    }
    const chipSig = `${view.chips.map((c) => `${c.callId}:${c.status}:${c.label}`).join('|')}+${view.moreChips}`;
    if (chipSig !== refs.sig.chips) {
      refs.sig.chips = chipSig;
      const chips = view.chips.map((c) => {
        const chip = el('span', `chip chip-${c.status}`);
        chip.title = c.title;
        chip.append(icon(c.icon, 'chip-glyph'), el('span', 'chip-label', c.label));
        chip.setAttribute('role', 'img');
        chip.setAttribute('aria-label', c.title);
        return chip;
      });
      if (view.moreChips > 0) chips.push(el('span', 'chip chip-more', `+${view.moreChips}`));
      refs.chips.replaceChildren(...chips);
    }
    const actionSig = `${view.approvals.map((a) => `${a.approval.requestId}:${a.sent ?? ''}`).join('|')}#${view.retry}`;
    if (actionSig !== refs.sig.actions) {
      refs.sig.actions = actionSig;
      this.renderActions(refs, view);
    }
  }

  setSelected(stepId: string | undefined): void {
    const before = this.selectedId;
    this.selectedId = stepId;
    for (const id of [before, stepId]) {
      const refs = id !== undefined ? this.nodes.get(id) : undefined;
      if (!refs) continue;
      const on = id === stepId;
      refs.root.classList.toggle('selected', on);
      refs.sig.classes = refs.root.className;
      setAttr(refs.root, 'aria-current', on ? 'true' : undefined);
    }
    if (stepId !== undefined && this.nodes.has(stepId)) this.setFocusable(stepId);
  }

  /** Moves keyboard focus to a node. */
  focusNode(stepId: string): void {
    const refs = this.nodes.get(stepId);
    if (!refs) return;
    this.setFocusable(stepId);
    refs.root.focus({ preventScroll: true });
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
    const refs = stepId !== undefined ? this.nodes.get(stepId) : undefined;
    if (refs) refs.root.tabIndex = 0;
  }

  private createNode(id: string): NodeRefs {
    // Cloning one skeleton is cheaper than building ten elements per node on a 200-step reset.
    this.template ??= GraphView.skeleton();
    const slot = this.template.cloneNode(true) as HTMLDivElement;
    const root = slot.firstElementChild as HTMLDivElement;
    root.dataset.stepId = id;
    const [head, desc, meta, chips, actions] = root.children as unknown as [HTMLDivElement, HTMLDivElement, HTMLDivElement, HTMLDivElement, HTMLDivElement];
    const [glyph, idLabel, tags] = head.children as unknown as [HTMLSpanElement, HTMLSpanElement, HTMLSpanElement];
    idLabel.textContent = id;
    return { slot, root, head, glyph, tags, desc, meta, chips, actions, sig: { tags: '', chips: '', actions: '', status: '', classes: '' } };
  }

  /**
   * A node inside its positioned slot. Only the slot carries the per-node inline position, so the
   * styled node itself has no inline style and Chromium can share one computed style between all
   * nodes of the same status (a unique inline style per node made the style recalculation of a
   * 200-step reset about a third slower).
   */
  private static skeleton(): HTMLDivElement {
    const slot = el('div', 'node-slot');
    const root = el('div', 'node');
    root.tabIndex = -1;
    root.setAttribute('role', 'group');
    root.setAttribute('aria-roledescription', 'step');
    const head = el('div', 'node-head');
    const glyph = el('span', 'node-glyph');
    glyph.setAttribute('aria-hidden', 'true');
    head.append(glyph, el('span', 'node-id'), el('span', 'node-tags'));
    const actions = el('div', 'node-actions');
    actions.hidden = true;
    root.append(head, el('div', 'node-desc'), el('div', 'node-meta'), el('div', 'node-chips'), actions);
    slot.append(root);
    return slot;
  }

  private renderActions(refs: NodeRefs, view: StepView): void {
    const items: HTMLElement[] = [];
    const first = view.approvals[0];
    if (first) {
      const a = first.approval;
      const approve = button(first.sent === 'approve' ? 'Approving…' : 'Approve', 'btn btn-primary btn-small', `Approve ${a.toolName} for step ${view.id}`, (_ev, self) => this.handlers.approve(a, self));
      const deny = button(first.sent === 'deny' ? 'Denying…' : 'Deny', 'btn btn-secondary btn-small', `Deny ${a.toolName} for step ${view.id}`, (_ev, self) => this.handlers.deny(a, self));
      approve.disabled = deny.disabled = first.sent !== undefined;
      const label = el('span', 'action-label', a.toolName);
      label.title = a.reason || a.toolName;
      items.push(label, approve, deny);
      if (view.approvals.length > 1) items.push(el('span', 'action-more', `+${view.approvals.length - 1} more`));
    }
    if (view.retry !== 'none') {
      const retry = button(view.retry === 'sent' ? 'Retrying…' : 'Retry', 'btn btn-secondary btn-small', `Retry step ${view.id}`, (_ev, self) => this.handlers.retry(view.id, self));
      retry.disabled = view.retry === 'sent';
      const label = el('span', 'action-label', 'required approval denied');
      items.push(label, retry);
    }
    refs.actions.replaceChildren(...items);
    refs.actions.hidden = items.length === 0;
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
