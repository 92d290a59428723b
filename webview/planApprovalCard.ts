import type { PlanApprovalState } from '../src/core/plan/planApprovalSchema';
import { describeCheck } from '../src/core/plan/stepChecks';
import { button, el } from './dom';
import type { PlanStore } from './store';

// The plan approval under the run header (docs/design.md, “Step scopes and plan approval”): in
// the `plan` approval mode the run waits here after planning. Every proposed step is shown with
// its scope (the files it may write, the commands it may run) and its checks; for a replan, what it
// needs beyond the approved plan is marked "new". Approve plan, or Deny with feedback (the planner
// writes a new plan). Rebuilt only when the request changes, so typed feedback survives the events.

export interface PlanApprovalHandlers {
  answer(request: PlanApprovalState, approved: boolean, feedback: string | undefined, source: HTMLButtonElement): void;
}

export class PlanApprovalCard {
  readonly root = el('section', 'plan-approval');
  private requestId = '';
  private approve: HTMLButtonElement | undefined;
  private deny: HTMLButtonElement | undefined;

  constructor(private readonly handlers: PlanApprovalHandlers) {
    this.root.setAttribute('aria-label', 'Plan approval');
    this.root.hidden = true;
  }

  update(store: PlanStore): void {
    const request = store.pendingPlanApproval();
    const sent = request ? store.answered.has(request.requestId) : false;
    if ((request?.requestId ?? '') !== this.requestId) {
      this.requestId = request?.requestId ?? '';
      this.root.hidden = !request;
      this.root.replaceChildren(...(request ? this.render(request) : []));
    }
    if (this.approve) this.approve.disabled = sent;
    if (this.deny) this.deny.disabled = sent;
  }

  private render(request: PlanApprovalState): HTMLElement[] {
    const title = el(
      'h2',
      'plan-approval-title',
      request.kind === 'plan'
        ? `Approve the plan${request.title ? `: ${request.title}` : ''}`
        : `The redesign of ${request.failedStepId ?? 'a step'} needs more than the approved plan`,
    );
    const intro = el(
      'p',
      'plan-approval-intro muted',
      request.kind === 'plan'
        ? 'After approval, a call inside its step’s scope runs without asking; anything else asks and is marked as drift. Deny rules, required gates, protected files and the sandbox still apply.'
        : 'Approve the new steps, or deny them: the failed step then ends blocked.',
    );
    const list = el('ol', 'plan-approval-steps');
    request.steps.forEach((step, index) => {
      const item = el('li', 'plan-approval-step');
      item.append(el('div', 'plan-approval-desc', step.description));
      if (step.dependsOn.length) item.append(el('div', 'plan-approval-after muted', `after ${step.dependsOn.map((d) => d + 1).join(', ')}`));
      const scope = el('dl', 'plan-approval-scope');
      scope.append(el('dt', '', 'Writes'), el('dd', '', step.scope?.write?.length ? step.scope.write.join(', ') : 'nothing'));
      scope.append(el('dt', '', 'Runs'), el('dd', '', step.scope?.commands?.length ? step.scope.commands.join(' · ') : 'no command'));
      if (step.expects?.length) scope.append(el('dt', '', 'Checks'), el('dd', '', step.expects.map(describeCheck).join('; ')));
      item.append(scope);
      const widening = request.widening?.find((w) => w.index === index);
      if (widening) {
        const text = [...widening.write.map((g) => `writes ${g}`), ...widening.commands.map((c) => `runs ${c}`)].join(', ');
        item.append(el('div', 'plan-approval-new', `New: ${text}`));
      }
      list.append(item);
    });
    const feedback = el('textarea', 'plan-approval-feedback');
    feedback.rows = 2;
    feedback.maxLength = 4000;
    feedback.placeholder = request.kind === 'plan' ? 'What should change? (sent to the planner if you deny)' : 'Why not? (optional)';
    feedback.setAttribute('aria-label', 'Feedback if you deny the plan');
    this.approve = button(request.kind === 'plan' ? 'Approve plan' : 'Approve new steps', 'btn btn-primary', 'Approve the plan', (_ev, self) =>
      this.handlers.answer(request, true, undefined, self),
    );
    this.deny = button('Deny', 'btn btn-secondary', 'Deny the plan (with the feedback, if any)', (_ev, self) =>
      this.handlers.answer(request, false, feedback.value.trim() || undefined, self),
    );
    const actions = el('div', 'plan-approval-actions');
    actions.append(this.approve, this.deny);
    return [title, intro, list, feedback, actions];
  }
}
