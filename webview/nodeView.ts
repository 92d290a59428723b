import { setDriftBadge } from './driftBadge';
import type { StepStatus } from '../src/core/plan/planTypes';
import type { ApprovalRequestMessage } from '../src/protocol/messages';
import { button, el, setAttr, setText } from './dom';
import { approvalLabel, approvalSubject } from './approvalText';
import { icon, setIcon } from './icons';
import { setProofBadge } from './proofChecks';
import type { StepView } from './stepView';

// The DOM of one DAG node, restyled in place from its StepView. A node always has its head (status
// icon, id) and, when it needs them, its action bar (Approve/Deny, Retry). The detail parts
// (description, meta line, tags, tool-call chips) are only built while the graph is shown at a
// zoom where they are readable: a 200-step plan opens zoomed out, where they would be hidden anyway,
// and building them for every node was a third of the DOM work of that first render.

export interface NodeActionHandlers {
  approve(approval: ApprovalRequestMessage, source: HTMLButtonElement): void;
  deny(approval: ApprovalRequestMessage, source: HTMLButtonElement): void;
  retry(stepId: string, source: HTMLButtonElement): void;
}

interface DetailParts {
  tags: HTMLSpanElement;
  desc: HTMLDivElement;
  meta: HTMLDivElement;
  chips: HTMLDivElement;
}

/**
 * A node inside its positioned slot. Only the slot carries the per-node inline position, so the
 * styled node itself has no inline style and Chromium can share one computed style between all
 * nodes of the same status (a unique inline style per node made the style recalculation of a
 * 200-step reset about a third slower). Cloned per node: cheaper than building it element by element.
 */
let skeleton: HTMLDivElement | undefined;
function newSkeleton(): HTMLDivElement {
  const slot = el('div', 'node-slot');
  const root = el('div', 'node');
  root.tabIndex = -1;
  root.setAttribute('role', 'group');
  root.setAttribute('aria-roledescription', 'step');
  const head = el('div', 'node-head');
  const glyph = el('span', 'node-glyph');
  glyph.setAttribute('aria-hidden', 'true');
  // The description for zoomed-out tiles (CSS shows it only there; the detail parts have their own).
  head.append(glyph, el('span', 'node-id'), el('span', 'node-label'));
  root.append(head);
  slot.append(root);
  return slot;
}

export class NodeView {
  readonly slot: HTMLDivElement;
  readonly root: HTMLDivElement;
  private readonly head: HTMLDivElement;
  private readonly glyph: HTMLSpanElement;
  private readonly label: HTMLSpanElement;
  private detail: DetailParts | undefined;
  private actions: HTMLDivElement | undefined;
  private view: StepView | undefined;
  private sig = { classes: '', tags: '', chips: '', actions: '' };
  /** The status last shown ('' before the first update). */
  status: StepStatus | '' = '';

  constructor(
    readonly id: string,
    withDetail: boolean,
    private readonly handlers: NodeActionHandlers,
  ) {
    skeleton ??= newSkeleton();
    this.slot = skeleton.cloneNode(true) as HTMLDivElement;
    this.root = this.slot.firstElementChild as HTMLDivElement;
    this.root.dataset.stepId = id;
    this.head = this.root.firstElementChild as HTMLDivElement;
    this.glyph = this.head.firstElementChild as HTMLSpanElement;
    (this.glyph.nextElementSibling as HTMLSpanElement).textContent = id;
    this.label = this.head.lastElementChild as HTMLSpanElement;
    if (withDetail) this.addDetail();
  }

  get hasDetail(): boolean {
    return this.detail !== undefined;
  }

  /** Builds the detail parts (once) and fills them from the last view. */
  showDetail(): void {
    if (this.detail) return;
    this.addDetail();
    if (this.view) this.updateDetail(this.view);
  }

  setSelected(on: boolean): void {
    this.root.classList.toggle('selected', on);
    this.sig.classes = this.root.className;
    setAttr(this.root, 'aria-current', on ? 'true' : undefined);
  }

  /** Restyles the node in place: classes, texts, chips, actions. No layout. */
  update(view: StepView, selected: boolean): void {
    this.view = view;
    const classes = `node status-${view.status}${view.replaced ? ' replaced' : ''}${view.isNew ? ' is-new' : ''}${view.approvals.length ? ' awaiting' : ''}${selected ? ' selected' : ''}`;
    if (this.sig.classes !== classes) {
      this.root.className = classes;
      this.sig.classes = classes;
    }
    setAttr(this.root, 'aria-label', view.ariaLabel);
    setAttr(this.root, 'aria-current', selected ? 'true' : undefined);
    setIcon(this.glyph, view.icon, 'node-glyph');
    setProofBadge(this.head, view.proof);
    setDriftBadge(this.head, view.drift);
    setAttr(this.glyph, 'title', view.statusLabel);
    // Full text on hover, also when zoomed out (only the head is visible then).
    setAttr(this.head, 'title', view.description);
    setText(this.label, view.description);
    this.status = view.status;
    if (this.detail) this.updateDetail(view);
    const actionSig = `${view.approvals.map((a) => `${a.approval.requestId}:${a.sent ?? ''}`).join('|')}#${view.retry}`;
    if (actionSig !== this.sig.actions) {
      this.sig.actions = actionSig;
      this.renderActions(view);
    }
  }

  private addDetail(): void {
    const parts: DetailParts = { tags: el('span', 'node-tags'), desc: el('div', 'node-desc'), meta: el('div', 'node-meta'), chips: el('div', 'node-chips') };
    this.head.append(parts.tags);
    // Before the action bar, if there is one.
    this.root.insertBefore(parts.desc, this.actions ?? null);
    this.root.insertBefore(parts.meta, this.actions ?? null);
    this.root.insertBefore(parts.chips, this.actions ?? null);
    this.detail = parts;
    this.sig.tags = this.sig.chips = '';
  }

  private updateDetail(view: StepView): void {
    const d = this.detail!;
    setText(d.desc, view.description);
    setAttr(d.desc, 'title', view.description);
    setText(d.meta, view.meta);
    setAttr(d.meta, 'title', view.meta || undefined);
    const tagSig = view.tags.map((t) => `${t.kind}:${t.text}:${t.title}`).join('|');
    if (tagSig !== this.sig.tags) {
      this.sig.tags = tagSig;
      d.tags.replaceChildren(
        ...view.tags.map((t) => {
          const tag = el('span', `tag tag-${t.kind}`, t.text);
          tag.title = t.title;
          return tag;
        }),
      );
    }
    const chipSig = `${view.chips.map((c) => `${c.callId}:${c.status}:${c.label}`).join('|')}+${view.moreChips}`;
    if (chipSig !== this.sig.chips) {
      this.sig.chips = chipSig;
      const chips = view.chips.map((c) => {
        const chip = el('span', `chip chip-${c.status}`);
        chip.title = c.title;
        chip.append(icon(c.icon, 'chip-glyph'), el('span', 'chip-label', c.label));
        chip.setAttribute('role', 'img');
        chip.setAttribute('aria-label', c.title);
        return chip;
      });
      if (view.moreChips > 0) chips.push(el('span', 'chip chip-more', `+${view.moreChips}`));
      d.chips.replaceChildren(...chips);
    }
  }

  private renderActions(view: StepView): void {
    const items: HTMLElement[] = [];
    const first = view.approvals[0];
    if (first) {
      const a = first.approval;
      const approve = button(
        first.sent === 'approve' ? 'Approving…' : 'Approve',
        'btn btn-primary btn-small',
        `Approve ${a.toolName} for step ${view.id}`,
        (_ev, self) => this.handlers.approve(a, self),
      );
      const deny = button(first.sent === 'deny' ? 'Denying…' : 'Deny', 'btn btn-secondary btn-small', `Deny ${a.toolName} for step ${view.id}`, (_ev, self) =>
        this.handlers.deny(a, self),
      );
      approve.disabled = deny.disabled = first.sent !== undefined;
      // The command line or the file, not only the tool's name.
      const label = el('span', 'action-label', approvalLabel(a));
      label.title = `${a.toolName}: ${approvalSubject(a).text}`;
      items.push(label, approve, deny);
      if (view.approvals.length > 1) items.push(el('span', 'action-more', `+${view.approvals.length - 1} more`));
    }
    if (view.retry !== 'none') {
      const retry = button(view.retry === 'sent' ? 'Retrying…' : 'Retry', 'btn btn-secondary btn-small', `Retry step ${view.id}`, (_ev, self) =>
        this.handlers.retry(view.id, self),
      );
      retry.disabled = view.retry === 'sent';
      const label = el('span', 'action-label', 'required approval denied');
      items.push(label, retry);
    }
    if (items.length === 0 && !this.actions) return;
    if (!this.actions) {
      this.actions = el('div', 'node-actions');
      this.root.append(this.actions);
    }
    this.actions.replaceChildren(...items);
    this.actions.hidden = items.length === 0;
  }
}
