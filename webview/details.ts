import { stepDrifts } from '../src/core/plan/stepDrift';
import type { PlanState, StepState, ToolCallRecord } from '../src/core/plan/planTypes';
import type { ApprovalRequestMessage } from '../src/protocol/messages';
import { approvalDiff, changesSignature, renderStepChanges, type ChangesHandlers } from './changesView';
import { stepContextView } from './contextView';
import { approvalReasonText, approvalSubject } from './approvalText';
import { rememberedText } from './rememberedText';
import { stepFailureSentence, withoutCallIds } from '../src/core/plan/failureText';
import { renderProofChecks } from './proofChecks';
import { mcpImageLines } from './mcpImages';
import { placeReasoning, reasoningHeading, type TurnReasoning } from './reasoningTurns';
import { canRetryInNewRun, carriedOverText, RETRY_STEP_HINT } from './stepRetry';
import { badge, button, custom, el, iconButton, pre, setText } from './dom';
import { formatDuration, formatOffset, humanize, mcpAnnotationText, mcpLabel, mcpOrigin, mcpRawResult, prettyJson, prettyValue, truncate } from './format';
import { CALL_STATUS_ICON, icon } from './icons';
import type { PlanStore } from './store';
import { blockedLabel, CALL_STATUS_LABEL, creatingReplan, endLabel, lineageReplans, replacedLabel, replanSummary, stepView, type StepView } from './stepView';

// The details pane of the selected step: description, status, verdict, pending approvals (with a
// feedback field for Deny), the complete tool history, audits, the lineage's replans and the output.
// Each section is rebuilt only when its content changed, so typing feedback or an expanded call
// survives the live event stream. All text goes through textContent.

export interface DetailsHandlers {
  approve(approval: ApprovalRequestMessage, source: HTMLButtonElement): void;
  deny(approval: ApprovalRequestMessage, feedback: string | undefined, source: HTMLButtonElement): void;
  retry(stepId: string, source: HTMLButtonElement): void;
  /** Runs a failed or blocked step of a finished run again in a new run (docs/design.md, “Retrying a step”). */
  retryInNewRun(stepId: string, source: HTMLButtonElement): void;
  select(stepId: string): void;
  close(): void;
  /** The step's changed files: a file's diff, the review, the revert (docs/design.md, “Checkpoints and revert”). */
  changes: ChangesHandlers;
}

/** Characters of a result, argument or output shown before "Show all". */
export const DETAIL_TEXT_LIMIT = 4000;

type SectionName =
  'head' | 'description' | 'state' | 'approvals' | 'verdict' | 'replans' | 'warnings' | 'calls' | 'changes' | 'context' | 'audits' | 'output' | 'files';
// What happened first (the failure in words, the approval, the verdict and what the replanner did),
// then the history; the machine's records (audits, call ids) fold under "Technical details".
const SECTION_ORDER: SectionName[] = [
  'head',
  'description',
  'state',
  'approvals',
  'verdict',
  'replans',
  'warnings',
  'calls',
  'changes',
  'output',
  'context',
  'files',
  'audits',
];
/** Audits the context section shows (one per request: too many for the generic list). */
const CONTEXT_AUDITS = new Set(['context_cost', 'memory_injected']);

interface Section {
  el: HTMLElement;
  sig: string;
}

export class DetailsPane {
  readonly root: HTMLElement;
  private readonly body: HTMLElement;
  private readonly empty: HTMLElement;
  private readonly sections = new Map<SectionName, Section>();
  private readonly callCache = new Map<string, { sig: string; el: HTMLElement }>();
  private readonly reasoningCache = new Map<string, { sig: string; el: HTMLElement }>();
  private readonly feedbackDrafts = new Map<string, string>();
  private currentStep: string | undefined;

  constructor(private readonly handlers: DetailsHandlers) {
    this.root = el('aside', 'details');
    this.root.setAttribute('aria-label', 'Step details');
    this.empty = el('div', 'details-empty');
    this.body = el('div', 'details-body');
    for (const name of SECTION_ORDER) {
      const section = el('section', `details-section details-${name}`);
      section.hidden = true;
      this.sections.set(name, { el: section, sig: '' });
      this.body.append(section);
    }
    this.root.append(this.empty, this.body);
  }

  /** Shows the step (live or replaced) or, with no selection, the run's task and a hint. */
  render(store: PlanStore, stepId: string | undefined): void {
    const state = store.state;
    const live = stepId !== undefined ? state.steps.get(stepId) : undefined;
    const step = live ?? (stepId !== undefined ? state.replacedSteps.get(stepId) : undefined);
    if (!step) {
      this.currentStep = undefined;
      this.body.hidden = true;
      this.empty.hidden = false;
      const hint =
        'Select a step (click it, or focus the graph and use the arrow keys and Enter) to see its description, status, verdict, tool history, audits, replans and output.';
      this.empty.replaceChildren(
        el('h2', 'details-title details-empty-title', 'Details'),
        el('p', 'muted', hint),
        ...(state.task ? [el('h3', 'details-label', 'Task'), el('p', 'details-text', state.task)] : []),
        ...instructionsList(state, undefined, 'Project instructions'),
      );
      return;
    }
    if (this.currentStep !== step.id) {
      this.currentStep = step.id;
      this.callCache.clear();
      this.reasoningCache.clear();
      for (const section of this.sections.values()) section.sig = '\u0000';
      this.body.scrollTop = 0;
    }
    this.empty.hidden = true;
    this.body.hidden = false;
    const replaced = !live;
    const view = stepView(state, step, replaced, {
      approvals: store.visibleApprovals(),
      answered: store.answered,
      retryPending: (id) => store.retryPending(id),
    });
    this.update('head', `${view.status}|${view.tags.map((t) => t.text).join(',')}|${step.id}`, (s) => this.head(s, view));
    const drifts = stepDrifts(step);
    this.update('description', JSON.stringify([step.description, step.scope ?? null, drifts.length]), (s) => {
      s.append(el('p', 'details-text', step.description));
      // What the step may touch under an approved plan, and what left it (docs/design.md, “Step scopes and plan approval”).
      if (step.scope) {
        const scope = el('dl', 'plan-approval-scope');
        scope.append(el('dt', '', 'Writes'), el('dd', '', step.scope.write?.length ? step.scope.write.join(', ') : 'nothing'));
        scope.append(el('dt', '', 'Runs'), el('dd', '', step.scope.commands?.length ? step.scope.commands.join(' · ') : 'no command'));
        s.append(el('h3', 'details-label', 'Scope'), scope);
      }
      if (drifts.length > 0) {
        s.append(el('h3', 'details-label', `Drift (${drifts.length})`));
        const list = el('ul', 'drift-list');
        for (const drift of drifts) list.append(el('li', 'drift-item', `${drift.what} (call ${drift.callId})`));
        s.append(list);
      }
    });
    this.update(
      'state',
      JSON.stringify([
        step.status,
        step.endReason,
        step.blockedBy,
        step.replacedBy,
        step.startedAt,
        step.finishedAt,
        view.retry,
        state.replans.length,
        canRetryInNewRun(state, step),
      ]),
      (s) => this.stateSection(s, state, step, view),
    );
    this.update('approvals', view.approvals.map((a) => `${a.approval.requestId}:${a.sent ?? ''}`).join('|'), (s) => this.approvalsSection(s, view));
    this.update('verdict', JSON.stringify(step.verdict ?? null), (s) => this.verdictSection(s, step));
    this.updateCalls(state, step, store.reasoning.get(step.id)?.reasoning ?? []);
    this.update('changes', changesSignature(store, step), (s) => renderStepChanges(s, store, step, this.handlers.changes));
    this.update('output', step.output ?? '', (s) => {
      if (step.output === undefined) return;
      s.append(el('h3', 'details-label', 'Output'), this.longText(step.output, 'pre'));
    });
    this.update('context', `${step.audits.length}|${JSON.stringify(step.usage ?? null)}`, (s) => this.contextSection(s, step));
    this.update('audits', String(step.audits.length), (s) => this.auditsSection(s, step));
    this.update('replans', String(state.replans.length), (s) => this.replansSection(s, state, step));
    const warnings = (state.notices ?? []).filter((n) => n.stepId === step.id);
    this.update('warnings', String(warnings.length), (s) => {
      if (warnings.length === 0) return;
      s.append(el('h3', 'details-label', warnings.length === 1 ? 'Warning' : `Warnings (${warnings.length})`));
      const ul = el('ul', 'note-list step-warnings');
      for (const w of warnings) ul.append(el('li', `notice-${w.level === 'warn' ? 'warning' : 'error'}-text`, w.message));
      s.append(ul);
    });
    this.update('files', `${step.files.join('\n')}|${state.instructions?.length ?? 0}`, (s) => {
      this.filesSection(s, step);
      s.append(...instructionsList(state, step.id, 'Also follows'));
    });
  }

  private update(name: SectionName, sig: string, build: (section: HTMLElement) => void): void {
    const section = this.sections.get(name)!;
    if (section.sig === sig) return;
    section.sig = sig;
    section.el.replaceChildren();
    build(section.el);
    section.el.hidden = section.el.childElementCount === 0;
  }

  private head(s: HTMLElement, view: StepView): void {
    const row = el('div', 'details-head');
    const glyph = icon(view.icon, `details-glyph status-${view.status}`);
    const title = el('h2', 'details-title', `Step ${view.id}`);
    const status = el('span', `status-pill status-${view.status}`, view.statusLabel);
    row.append(glyph, title, status);
    for (const t of view.tags) {
      const tag = el('span', `tag tag-${t.kind}`, t.text);
      tag.title = t.title;
      row.append(tag);
    }
    const close = iconButton('close', 'btn-icon details-close', 'Close details', () => this.handlers.close());
    close.title = 'Close details (Escape)';
    row.append(close);
    s.append(row);
  }

  private stateSection(s: HTMLElement, state: PlanState, step: StepState, view: StepView): void {
    const dl = el('dl', 'details-grid');
    const add = (term: string, value: string | HTMLElement): void => {
      dl.append(el('dt', '', term));
      const dd = el('dd');
      if (typeof value === 'string') dd.textContent = value;
      else dd.append(value);
      dl.append(dd);
    };
    const sentence = stepFailureSentence(state, step);
    if (sentence) s.append(el('p', 'failure-sentence', sentence));
    if (view.retry === 'none' && canRetryInNewRun(state, step)) {
      const row = el('div', 'details-actions retry-step-actions');
      const retry = button('Retry step', 'btn btn-primary', `Retry step: ${step.description}. ${RETRY_STEP_HINT}`, (_ev, self) =>
        this.handlers.retryInNewRun(step.id, self),
      );
      retry.title = RETRY_STEP_HINT;
      row.append(retry, el('span', 'muted', RETRY_STEP_HINT));
      s.append(row);
    }
    // The sentence says why; without one, the reason code in words.
    const reason = sentence ? '' : endLabel(step);
    add('Status', `${view.statusLabel}${reason ? ` — ${reason}` : ''}`);
    if (step.status === 'blocked' && !(sentence && (!step.blockedBy || step.blockedBy === step.id)))
      add('Blocked', this.withStepLinks(blockedLabel(state, step), step.blockedBy ? [step.blockedBy] : []));
    if (step.replacedBy) add('Replaced', this.withStepLinks(`${replacedLabel(state, step)} →`, step.replacedBy.newStepIds));
    if (step.origin === 'replan') {
      const record = creatingReplan(state, step.id);
      // A redesign that streams has no replan record before its reply ends; its steps name the failed step.
      const streaming = step.redesignOf ? `new: redesigns ${step.redesignOf}, whose replanner reply is still streaming` : 'new: added by a replan';
      add('Origin', record ? `new: added by replan ${record.attempt} of ${record.maxAttempts} after ${record.failedStepId} failed` : streaming);
    }
    const carried = carriedOverText(step);
    if (carried) add('Carried over', carried);
    if (step.dependsOn.length) add('Depends on', this.withStepLinks('', step.dependsOn));
    if (step.startedAt !== undefined) add('Started', formatOffset(step.startedAt, state.startedAt));
    if (step.finishedAt !== undefined)
      add(
        'Finished',
        `${formatOffset(step.finishedAt, state.startedAt)}${step.startedAt !== undefined ? ` (took ${formatDuration(step.finishedAt - step.startedAt)})` : ''}`,
      );
    s.append(dl);
    if (view.retry !== 'none') {
      const row = el('div', 'details-actions');
      const retry = button(view.retry === 'sent' ? 'Retrying…' : 'Retry step', 'btn btn-primary', `Retry step ${step.id}`, (_ev, self) =>
        this.handlers.retry(step.id, self),
      );
      retry.disabled = view.retry === 'sent';
      row.append(retry, el('span', 'muted', 'The required approval was denied. Retry asks again.'));
      s.append(row);
    }
  }

  private withStepLinks(text: string, ids: readonly string[]): HTMLElement {
    const span = el('span', 'step-links');
    if (text) span.append(document.createTextNode(`${text} `));
    for (const id of ids) {
      const link = button(id, 'link', `Show step ${id}`, () => this.handlers.select(id));
      span.append(link, document.createTextNode(' '));
    }
    return span;
  }

  private approvalsSection(s: HTMLElement, view: StepView): void {
    if (view.approvals.length === 0) return;
    s.append(el('h3', 'details-label', view.approvals.length === 1 ? 'Approval needed' : `Approvals needed (${view.approvals.length})`));
    for (const { approval: a, sent } of view.approvals) {
      const card = el('div', 'approval-card');
      const head = el('div', 'approval-head');
      head.append(
        el('span', 'approval-tool', a.toolName),
        el('span', `approvals-gate ${a.required ? 'required' : 'optional'}`, a.required ? 'required gate' : 'optional gate'),
      );
      card.append(head);
      const subject = approvalSubject(a);
      if (subject.kind !== 'call') card.append(el('code', `approvals-subject approvals-${subject.kind}`, subject.text));
      card.append(el('p', 'details-text', approvalReasonText(a)));
      card.append(el('h4', 'details-sublabel', 'Exact arguments'), this.longText(prettyJson(a.argumentsJson), 'pre code'), ...approvalDiff(a.diff));
      const field = custom('vscode-textarea', 'feedback') as HTMLElement & { value: string; placeholder: string; label: string };
      field.placeholder = 'Optional feedback for the model (sent with Deny)';
      // The attribute (not only the property) makes the component size itself by rows.
      field.setAttribute('rows', '3');
      // `label` becomes the inner <textarea>'s aria-label.
      field.label = `Feedback for the model if you deny ${a.toolName}`;
      field.value = this.feedbackDrafts.get(a.requestId) ?? '';
      field.addEventListener('input', () => this.feedbackDrafts.set(a.requestId, field.value));
      const row = el('div', 'details-actions');
      const approve = button(sent === 'approve' ? 'Approving…' : 'Approve', 'btn btn-primary', `Approve ${a.toolName} for step ${a.stepId}`, (_ev, self) =>
        this.handlers.approve(a, self),
      );
      const deny = button(sent === 'deny' ? 'Denying…' : 'Deny', 'btn btn-secondary', `Deny ${a.toolName} for step ${a.stepId}`, (_ev, self) => {
        const feedback = field.value.trim();
        this.handlers.deny(a, feedback || undefined, self);
      });
      approve.disabled = deny.disabled = sent !== undefined;
      field.toggleAttribute('disabled', sent !== undefined);
      row.append(approve, deny);
      card.append(field, row);
      s.append(card);
    }
  }

  private verdictSection(s: HTMLElement, step: StepState): void {
    if (!step.verdict) return;
    const v = step.verdict;
    s.append(el('h3', 'details-label', 'Verifier'));
    const p = el('p', `verdict ${v.passed ? 'verdict-pass' : 'verdict-fail'}`);
    const verdict = el('span', 'verdict-glyph');
    verdict.append(icon(v.passed ? 'pass' : 'error'), document.createTextNode(v.passed ? ' passed' : ' failed'));
    p.append(verdict, document.createTextNode(v.reason ? ` — ${withoutCallIds(v.reason)}` : ''));
    s.append(p);
    if (v.failedCallIds.length || withoutCallIds(v.reason) !== v.reason) {
      const fold = technical();
      fold.append(el('p', 'muted', `The verifier's words: ${v.reason}`));
      if (v.failedCallIds.length) fold.append(el('p', 'muted', `Calls that failed verification: ${v.failedCallIds.join(', ')}`));
      s.append(fold);
    }
    renderProofChecks(s, step, { showCall: (callId) => this.revealCall(callId), openDiff: (path) => this.handlers.changes.open(step.id, path) });
  }

  /** Opens a call of the tool history and scrolls it into view (a check's evidence points there). */
  private revealCall(callId: string): void {
    const entry = this.callCache.get(callId)?.el;
    if (!entry) return;
    // A vscode-collapsible opens through its `open` property.
    Object.assign(entry, { open: true });
    entry.scrollIntoView({ block: 'nearest' });
  }

  /**
   * The tool history, reconciled call by call: unchanged calls keep their element (and open state).
   * The model's reasoning folds under its turn: a closed fold before the turn's first call, or after
   * the calls for the turn that answered.
   */
  private updateCalls(state: PlanState, step: StepState, reasoning: readonly TurnReasoning[]): void {
    const section = this.sections.get('calls')!;
    const calls = step.toolCalls;
    if (calls.length === 0 && reasoning.length === 0) {
      section.el.replaceChildren();
      section.el.hidden = true;
      section.sig = '';
      return;
    }
    if (section.sig !== 'built') {
      section.sig = 'built';
      const head = el('h3', 'details-label', 'Tool history ');
      head.append(badge(''));
      section.el.replaceChildren(head, el('div', 'call-list'));
      section.el.hidden = false;
    }
    setText(section.el.querySelector('.badge')!, String(calls.length));
    const placed = placeReasoning(reasoning, calls);
    const nodes: HTMLElement[] = [];
    calls.forEach((call, i) => {
      const thought = placed.byCall.get(call.id);
      if (thought) nodes.push(this.reasoningFold(thought, false));
      const sig = callSignature(call);
      const cached = this.callCache.get(call.id);
      if (cached && cached.sig === sig) {
        nodes.push(cached.el);
        return;
      }
      const open = cached ? ((cached.el as HTMLElement & { open?: boolean }).open ?? false) : call.status !== 'success' || i === calls.length - 1;
      const fresh = this.callEntry(state, call, i, open, step);
      this.callCache.set(call.id, { sig, el: fresh });
      nodes.push(fresh);
    });
    for (const thought of placed.after) nodes.push(this.reasoningFold(thought, true));
    const list = section.el.querySelector('.call-list')!;
    nodes.forEach((node, i) => {
      if (list.children[i] !== node) list.insertBefore(node, list.children[i] ?? null);
    });
    while (list.children.length > nodes.length) list.lastElementChild!.remove();
  }

  /** A closed fold with one turn's reasoning, as plain text, clipped with "Show all"; kept (with its open state) while unchanged. */
  private reasoningFold(reasoning: TurnReasoning, answered: boolean): HTMLElement {
    const key = `${reasoning.turn}|${answered}`;
    const sig = `${reasoning.text.length}|${reasoning.model ?? ''}`;
    const cached = this.reasoningCache.get(key);
    if (cached?.sig === sig) return cached.el;
    const fold = el('details', `reasoning${answered ? ' reasoning-answer' : ''}`);
    fold.append(el('summary', '', reasoningHeading(reasoning, answered)), this.longText(reasoning.text, 'pre reasoning-text'));
    this.reasoningCache.set(key, { sig, el: fold });
    return fold;
  }

  private callEntry(state: PlanState, call: ToolCallRecord, i: number, open: boolean, step: StepState): HTMLElement {
    const c = custom('vscode-collapsible', `call call-${call.status}`) as HTMLElement & { heading: string; open: boolean };
    const mcp = mcpOrigin(call);
    c.heading = `${i + 1}. ${mcp ? mcpLabel(mcp) : call.name || call.requestedName} — ${CALL_STATUS_LABEL[call.status]}`;
    c.open = open;
    const deco = el('span', `chip chip-${call.status}`);
    deco.append(icon(CALL_STATUS_ICON[call.status], 'chip-glyph'));
    deco.slot = 'decorations';
    deco.setAttribute('aria-hidden', 'true');
    c.append(deco);
    const body = el('div', 'call-body');
    const dl = el('dl', 'details-grid');
    const add = (term: string, value: string): void => {
      dl.append(el('dt', '', term), el('dd', '', value));
    };
    add(
      'Tool',
      call.requestedName && call.requestedName !== call.name
        ? `${call.name} (requested “${call.requestedName}”, resolved by ${call.nameResolution})`
        : `${call.name} (${call.nameResolution})`,
    );
    if (mcp) {
      add('MCP server', mcp.server);
      add('MCP tool', mcp.tool);
      add('Annotations', `${mcpAnnotationText(mcp.annotations)} (the server's own hints)`);
      const images = mcpImageLines(step.audits, call.id);
      if (images.length > 0) add(images.length === 1 ? 'Image' : 'Images', images.join('; '));
    }
    add('Status', `${CALL_STATUS_LABEL[call.status]}${call.reason ? ` — ${call.reason}` : ''}`);
    if (call.reusedFrom) add('Not run', `reuses the result of the identical call ${call.reusedFrom} of the same response`);
    add(
      'Call',
      `id ${call.id} · turn ${call.turn} · index ${call.index}${call.finishReason ? ` · finish ${call.finishReason}` : ''}${call.isComplete ? '' : ' · incomplete arguments'}`,
    );
    const timing = [`requested ${formatOffset(call.requestedAt, state.startedAt)}`];
    if (call.completedAt !== undefined) timing.push(`completed ${formatOffset(call.completedAt, state.startedAt)}`);
    if (call.durationMs !== undefined) timing.push(`took ${formatDuration(call.durationMs)}`);
    add('Timing', timing.join(' · '));
    if (call.approval) {
      const a = call.approval;
      add(
        'Approval',
        `${a.required ? 'required' : 'optional'} gate, deny ${a.denyEffect === 'block' ? 'blocks the step' : 'lets the model continue'}${a.reason ? ` — ${a.reason}` : ''}${a.feedback ? ` · feedback: ${a.feedback}` : ''}`,
      );
      const remembered = rememberedText(a);
      if (remembered) add('Remembered', remembered);
    }
    body.append(dl, el('h4', 'details-sublabel', 'Arguments'), this.longText(prettyJson(call.arguments), 'pre code'));
    if (call.rawArguments && call.rawArguments !== call.arguments)
      body.append(el('h4', 'details-sublabel', 'Raw arguments (as streamed)'), this.longText(call.rawArguments, 'pre code'));
    if (call.result !== undefined) {
      const isError = call.status === 'error' || call.error === true;
      body.append(
        el('h4', 'details-sublabel', isError ? 'Error' : call.status === 'rejected' ? 'Rejection' : 'Result'),
        this.longText(call.result, `pre ${isError ? 'pre-error' : ''}`),
      );
    }
    const raw = mcp ? mcpRawResult(step.audits, call.id) : undefined;
    if (raw !== undefined) body.append(el('h4', 'details-sublabel', 'Raw MCP result'), this.longText(prettyJson(raw), 'pre code mcp-raw'));
    if (call.audit && Object.keys(call.audit).length)
      body.append(el('h4', 'details-sublabel', 'Repair audit'), this.longText(prettyValue(call.audit), 'pre code'));
    c.append(body);
    return c;
  }

  /** Tokens and cost, the memories injected, and each request's context-budget decision. */
  private contextSection(s: HTMLElement, step: StepState): void {
    const view = stepContextView(step);
    if (!view) return;
    s.append(el('h3', 'details-label', 'Tokens and context'));
    const dl = el('dl', 'details-grid');
    const add = (term: string, value: string): void => {
      dl.append(el('dt', '', term), el('dd', '', value));
    };
    if (view.tokens) add('Tokens', view.tokens);
    add('Context', view.summary);
    s.append(dl);
    if (view.memories.length) {
      s.append(el('h4', 'details-sublabel', `Memories injected (${view.memories.length})`));
      const ul = el('ul', 'note-list');
      for (const m of view.memories) ul.append(el('li', '', `[${m.id}]${m.tags.length ? ` (${m.tags.join(', ')})` : ''} ${m.text}`));
      s.append(ul);
    }
    if (view.rows.length) {
      const c = custom('vscode-collapsible', 'audit') as HTMLElement & { heading: string };
      c.heading = `Budget decisions${view.hiddenRows ? ` (last ${view.rows.length} of ${view.rows.length + view.hiddenRows})` : ''}`;
      const ol = el('ol', 'note-list');
      for (const row of view.rows) ol.append(el('li', '', `${row.purpose}: ${row.tokens} — ${row.actions}${row.flag ? ` [${row.flag}]` : ''}`));
      c.append(ol);
      s.append(c);
    }
  }

  private auditsSection(s: HTMLElement, step: StepState): void {
    const audits = step.audits.filter((a) => !CONTEXT_AUDITS.has(String(a.kind)));
    if (audits.length === 0) return;
    const fold = technical(`Technical details: ${audits.length} repair and failover audit${audits.length === 1 ? '' : 's'}`);
    s.append(fold);
    for (const audit of audits) {
      const kind = typeof audit.kind === 'string' ? humanize(audit.kind) : 'audit';
      const c = custom('vscode-collapsible', 'audit') as HTMLElement & { heading: string };
      c.heading = kind;
      c.append(this.longText(prettyValue(audit), 'pre code'));
      fold.append(c);
    }
  }

  private replansSection(s: HTMLElement, state: PlanState, step: StepState): void {
    const records = lineageReplans(state, step);
    if (records.length === 0) return;
    s.append(el('h3', 'details-label', 'What the replanner did'));
    const ol = el('ol', 'replan-list');
    for (const record of records) ol.append(el('li', '', withoutCallIds(replanSummary(record))));
    s.append(ol);
  }

  private filesSection(s: HTMLElement, step: StepState): void {
    if (step.files.length === 0) return;
    s.append(el('h3', 'details-label', 'Files'));
    const ul = el('ul', 'note-list');
    for (const file of step.files) ul.append(el('li', 'mono', file));
    s.append(ul);
  }

  /** A <pre> cut at DETAIL_TEXT_LIMIT characters with a "Show all" button for the rest. */
  private longText(text: string, className: string): HTMLElement {
    const cut = truncate(text, DETAIL_TEXT_LIMIT);
    const block = pre(cut.text, className);
    block.tabIndex = 0;
    if (!cut.truncated) return block;
    const wrap = el('div', 'long-text');
    const more = button(`Show all (${cut.omitted.toLocaleString('en-US')} more characters)`, 'link', 'Show the full text', () => {
      block.textContent = text;
      more.remove();
    });
    wrap.append(block, more);
    return wrap;
  }
}

/** A closed "Technical details" disclosure: call ids, hashes and audits, for whoever needs them. */
function technical(summary = 'Technical details'): HTMLDetailsElement {
  const fold = el('details', 'technical');
  fold.append(el('summary', '', summary));
  return fold;
}

/** Changes whenever anything shown for the call changes. */
export function callSignature(call: ToolCallRecord): string {
  return `${call.status}|${call.result?.length ?? -1}|${call.reason ?? ''}|${call.approval?.requestId ?? ''}|${call.approval?.feedback ?? ''}|${call.durationMs ?? ''}|${call.arguments.length}|${call.isComplete}`;
}

/** The project's instructions files the run (stepId undefined) or a step used, as a labelled list; nothing when none. */
function instructionsList(state: PlanState, stepId: string | undefined, label: string): HTMLElement[] {
  const files = (state.instructions ?? []).filter((file) => file.stepId === stepId);
  if (files.length === 0) return [];
  const ul = el('ul', 'note-list');
  for (const file of files) ul.append(el('li', 'mono', `${file.path} (${file.bytes < 1024 ? `${file.bytes} B` : `${(file.bytes / 1024).toFixed(1)} KiB`})`));
  return [el('h3', 'details-label', label), ul];
}
