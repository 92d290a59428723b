import type { ApprovalRequestMessage } from '../src/protocol/messages';
import { button, el, setAttr, setText } from './dom';
import { setDriftBadge } from './driftBadge';
import { icon, setIcon } from './icons';
import { RETRY_STEP_HINT, type PlanRow } from './planList';
import type { StepView } from './stepView';

// The plan as a list: one row per live step, in plan order, with its status, its drift badge, its full text, what it
// does now or how it ended, its warnings, Approve/Deny for a waiting call and Retry after a denial. Readable at any panel
// width and any plan size, where the graph needs zoom. Rows are updated in place (keyed by step id).

export interface ListHandlers {
  select(stepId: string): void;
  approve(approval: ApprovalRequestMessage, source: HTMLButtonElement): void;
  deny(approval: ApprovalRequestMessage, source: HTMLButtonElement): void;
  /** Run again a step that ended on a denied required approval. */
  retry(stepId: string, source: HTMLButtonElement): void;
  /** A failed or blocked step of a finished run: run it again in a new run. */
  retryInNewRun(stepId: string, source: HTMLButtonElement): void;
  /** Show the step's details (selects it and moves the focus there). */
  openDetails(stepId: string): void;
}

interface RowParts {
  li: HTMLLIElement;
  head: HTMLDivElement;
  id: HTMLSpanElement;
  glyph: HTMLSpanElement;
  status: HTMLSpanElement;
  main: HTMLButtonElement;
  activity: HTMLDivElement;
  warnings: HTMLUListElement;
  actions: HTMLDivElement;
  sig: string;
}

export class ListView {
  readonly root: HTMLElement;
  private readonly list = el('ol', 'plan-list');
  private readonly rows = new Map<string, RowParts>();
  private selectedId: string | undefined;

  constructor(private readonly handlers: ListHandlers) {
    this.root = el('section', 'list-pane');
    this.root.setAttribute('aria-label', 'Plan steps as a list');
    this.root.append(this.list);
  }

  /** Shows exactly these rows, in this order. */
  setRows(rows: Array<{ row: PlanRow; view: StepView }>): void {
    const keep = new Set(rows.map((r) => r.row.id));
    for (const [id, parts] of this.rows) {
      if (!keep.has(id)) {
        parts.li.remove();
        this.rows.delete(id);
      }
    }
    rows.forEach(({ row, view }, i) => {
      let parts = this.rows.get(row.id);
      if (!parts) {
        parts = this.newRow(row.id);
        this.rows.set(row.id, parts);
      }
      if (this.list.children[i] !== parts.li) this.list.insertBefore(parts.li, this.list.children[i] ?? null);
      this.fill(parts, row, view);
    });
  }

  /** Restyles one row (a status change, a new call). */
  updateRow(row: PlanRow, view: StepView): void {
    const parts = this.rows.get(row.id);
    if (parts) this.fill(parts, row, view);
  }

  setSelected(stepId: string | undefined): void {
    if (this.selectedId) this.rows.get(this.selectedId)?.li.classList.remove('selected');
    this.selectedId = stepId;
    const parts = stepId ? this.rows.get(stepId) : undefined;
    parts?.li.classList.add('selected');
    for (const [id, p] of this.rows) setAttr(p.main, 'aria-current', id === stepId ? 'true' : undefined);
  }

  focusRow(stepId: string): void {
    this.rows.get(stepId)?.main.focus();
  }

  private newRow(id: string): RowParts {
    const li = el('li', 'plan-row');
    li.dataset.stepId = id;
    const glyph = el('span', 'plan-row-glyph');
    glyph.setAttribute('aria-hidden', 'true');
    const status = el('span', 'status-pill plan-row-status');
    const main = button('', 'plan-row-text', '', () => this.handlers.select(id));
    const activity = el('div', 'plan-row-activity');
    const warnings = el('ul', 'plan-row-warnings');
    const actions = el('div', 'plan-row-actions');
    const head = el('div', 'plan-row-head');
    const idText = el('span', 'plan-row-id', id);
    head.append(glyph, status, idText);
    li.append(head, main, activity, warnings, actions);
    return { li, head, id: idText, glyph, status, main, activity, warnings, actions, sig: '' };
  }

  private fill(parts: RowParts, row: PlanRow, view: StepView): void {
    const actionSig = view.approvals.map((a) => `${a.approval.requestId}:${a.sent ?? ''}`).join('|');
    const sig = JSON.stringify([
      view.status,
      row.description,
      row.activity,
      row.tone,
      row.warnings,
      actionSig,
      view.retry,
      row.retryable,
      view.ariaLabel,
      view.drift,
    ]);
    if (sig === parts.sig) return;
    parts.sig = sig;
    parts.li.className = `plan-row status-${view.status} tone-${row.tone}${view.isNew ? ' is-new' : ''}${this.selectedId === row.id ? ' selected' : ''}`;
    setIcon(parts.glyph, view.icon, 'plan-row-glyph');
    setText(parts.status, view.statusLabel);
    setDriftBadge(parts.head, view.drift, parts.id);
    setText(parts.main, row.description);
    parts.main.setAttribute('aria-label', `${view.ariaLabel}. Show details`);
    setText(parts.activity, row.activity);
    parts.activity.hidden = row.activity === '';
    parts.warnings.replaceChildren(
      ...row.warnings.map((w) => {
        const item = el('li', 'plan-row-warning');
        item.append(icon('warning', 'plan-row-warning-glyph', 'Warning'), el('span', '', w));
        return item;
      }),
    );
    parts.warnings.hidden = row.warnings.length === 0;
    const items: HTMLElement[] = [];
    for (const { approval: a, sent } of view.approvals) {
      const approve = button(
        sent === 'approve' ? 'Approving…' : 'Approve',
        'btn btn-primary btn-small',
        `Approve ${a.toolName} for step ${view.id}`,
        (_ev, self) => this.handlers.approve(a, self),
      );
      const deny = button(sent === 'deny' ? 'Denying…' : 'Deny', 'btn btn-secondary btn-small', `Deny ${a.toolName} for step ${view.id}`, (_ev, self) =>
        this.handlers.deny(a, self),
      );
      approve.disabled = deny.disabled = sent !== undefined;
      items.push(approve, deny);
    }
    if (view.retry !== 'none') {
      const retry = button(view.retry === 'sent' ? 'Retrying…' : 'Retry step', 'btn btn-secondary btn-small', `Retry step ${view.id}`, (_ev, self) =>
        this.handlers.retry(view.id, self),
      );
      retry.disabled = view.retry === 'sent';
      items.push(retry);
    }
    if (row.retryable) {
      const retry = button('Retry step', 'btn btn-primary btn-small', `Retry step: ${row.description}. ${RETRY_STEP_HINT}`, (_ev, self) =>
        this.handlers.retryInNewRun(view.id, self),
      );
      retry.title = RETRY_STEP_HINT;
      const details = button('Open details', 'btn btn-secondary btn-small', `Open the details of step ${view.id}: ${row.description}`, () =>
        this.handlers.openDetails(view.id),
      );
      items.push(retry, details);
    }
    parts.actions.replaceChildren(...items);
    parts.actions.hidden = items.length === 0;
  }
}
