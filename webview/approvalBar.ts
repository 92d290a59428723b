import type { ApprovalRequestMessage } from '../src/protocol/messages';
import { approvalReasonText, approvalSubject } from './approvalText';
import { describeRule } from '../src/core/plan/rememberedApproval';
import { button, el } from './dom';
import { stepName } from '../src/core/plan/failureText';
import type { PlanStore } from './store';

// The sticky approval bar under the run header: shown whenever one or more tool calls wait, at any
// zoom and in either view. Each request shows what would run (the command line or the file, with
// its diff), why Cortex asks in words, Approve, Deny and an optional feedback for Deny; a request
// that may be remembered also gets "Approve for this run" and, for a command prefix, "Always allow
// in this workspace" (docs/design.md, “Remembered approvals”), each naming what it covers; two or more
// also get "Approve all (N)" / "Deny all". Rebuilt only when the set of waiting requests changes,
// so typed feedback survives the event stream.

export interface ApprovalBarHandlers {
  approve(approval: ApprovalRequestMessage, source: HTMLButtonElement): void;
  /** Approve and remember what the request's offer covers, for the run or the workspace. */
  approveRemembered(approval: ApprovalRequestMessage, scope: 'run' | 'workspace', source: HTMLButtonElement): void;
  deny(approval: ApprovalRequestMessage, feedback: string | undefined, source: HTMLButtonElement): void;
  approveAll(source: HTMLButtonElement): void;
  denyAll(source: HTMLButtonElement): void;
  /** Show the step in the details pane. */
  select(stepId: string): void;
}

export class ApprovalBar {
  readonly root = el('section', 'approvals-bar');
  private readonly title = el('h2', 'approvals-title');
  private readonly list = el('ul', 'approvals-list');
  private readonly approveAll: HTMLButtonElement;
  private readonly denyAll: HTMLButtonElement;
  private readonly drafts = new Map<string, string>();
  private sig = '';

  constructor(private readonly handlers: ApprovalBarHandlers) {
    this.approveAll = button('Approve all', 'btn btn-primary', 'Approve all pending tool calls', (_ev, self) => this.handlers.approveAll(self));
    this.denyAll = button('Deny all', 'btn btn-secondary', 'Deny all pending tool calls', (_ev, self) => this.handlers.denyAll(self));
    const head = el('div', 'approvals-head');
    const bulk = el('div', 'approvals-buttons');
    bulk.append(this.approveAll, this.denyAll);
    head.append(this.title, bulk);
    this.root.setAttribute('aria-label', 'Pending approvals');
    this.root.append(head, this.list);
    this.root.hidden = true;
  }

  update(store: PlanStore): void {
    const open = store.openApprovals();
    const sig = open.map((a) => a.requestId).join('|');
    if (sig === this.sig) return;
    this.sig = sig;
    this.root.hidden = open.length === 0;
    for (const id of [...this.drafts.keys()]) if (!open.some((a) => a.requestId === id)) this.drafts.delete(id);
    if (open.length === 0) {
      this.list.replaceChildren();
      return;
    }
    this.title.textContent = open.length === 1 ? 'Cortex asks before it continues' : `${open.length} tool calls await approval`;
    this.approveAll.parentElement!.hidden = open.length < 2;
    this.approveAll.textContent = `Approve all (${open.length})`;
    this.approveAll.setAttribute('aria-label', `Approve all ${open.length} pending tool calls`);
    this.approveAll.disabled = this.denyAll.disabled = false;
    this.list.replaceChildren(...open.map((a) => this.item(store, a)));
  }

  private item(store: PlanStore, a: ApprovalRequestMessage): HTMLElement {
    const step = store.state.steps.get(a.stepId);
    const subject = approvalSubject(a);
    const li = el('li', 'approvals-item');
    const head = el('div', 'approvals-item-head');
    const action = el('span', 'approvals-action', subject.action);
    const where = button(step ? stepName(step) : a.stepId, 'link approvals-step', `Show step ${a.stepId} in the details`, () => this.handlers.select(a.stepId));
    head.append(action, el('span', 'muted', 'for'), where);
    const what = el('code', `approvals-subject approvals-${subject.kind}`, subject.text);
    what.title = subject.text;
    li.append(head, what, el('p', 'approvals-reason', approvalReasonText(a)));
    if (a.diff) {
      const fold = el('details', 'approvals-diff');
      fold.append(el('summary', '', 'Show the change it would make'), el('pre', 'pre code approval-diff', a.diff));
      li.append(fold);
    }
    const feedback = el('input', 'approvals-feedback');
    feedback.type = 'text';
    feedback.placeholder = 'Optional feedback for the model if you deny';
    feedback.setAttribute('aria-label', `Feedback for the model if you deny: ${subject.text}`);
    feedback.maxLength = 4000;
    feedback.value = this.drafts.get(a.requestId) ?? '';
    feedback.addEventListener('input', () => this.drafts.set(a.requestId, feedback.value));
    const name = `${subject.kind === 'call' ? a.toolName : `${a.toolName} ${subject.text}`}`;
    const approve = button('Approve', 'btn btn-primary', `Approve ${name}`, (_ev, self) => this.handlers.approve(a, self));
    const deny = button('Deny', 'btn btn-secondary', `Deny ${name}`, (_ev, self) => this.handlers.deny(a, feedback.value.trim() || undefined, self));
    const row = el('div', 'approvals-item-actions');
    row.append(approve, ...this.rememberButtons(a), deny, feedback);
    li.append(row);
    // What the remembered answers cover, in words beside the buttons (not only in their tooltips).
    if (a.remember)
      li.append(
        el(
          'p',
          'approvals-remember-note muted',
          `${a.remember.workspace ? '“Approve for this run” and “Always allow” also approve' : '“Approve for this run” also approves'} ${describeRule(a.remember.rule)}${'prefix' in a.remember.rule ? ' (plain words after it, never shell syntax)' : ''}.`,
        ),
      );
    return li;
  }

  /** "Approve for this run" and "Always allow in this workspace" when the request's offer allows them; what they cover is in their tooltip. */
  private rememberButtons(a: ApprovalRequestMessage): HTMLButtonElement[] {
    const offer = a.remember;
    if (!offer) return [];
    const covers = describeRule(offer.rule);
    const run = button(
      'Approve for this run',
      'btn btn-secondary approvals-remember',
      `Approve this call and, for the rest of this run, ${covers}`,
      (_ev, self) => this.handlers.approveRemembered(a, 'run', self),
    );
    run.title = `Also approves, until this run ends: ${covers}`;
    if (!offer.workspace) return [run];
    const always = button(
      'Always allow in this workspace',
      'btn btn-secondary approvals-remember',
      `Approve this call and always allow ${covers} in this workspace`,
      (_ev, self) => this.handlers.approveRemembered(a, 'workspace', self),
    );
    always.title = `Also approves, in this workspace from now on (remove it with Cortex: Manage approvals): ${covers}`;
    return [run, always];
  }
}
