import type { PlanState, StepState } from '../src/core/plan/planTypes';
import { button, el } from './dom';
import { endpointFixes, type EndpointFix } from './endpointFixes';
import { runFailureSummary } from '../src/core/plan/failureText';
import { canRetryInNewRun, RETRY_STEP_HINT } from './stepRetry';

// The run's outcome above the plan: the final answer, or what went wrong in words (the steps that
// did not complete, by their descriptions), with the buttons that fix it: Open details for the
// failed step, and for an endpoint error Set API key / Open endpoint settings / Retry. The run's
// raw error text folds under "Technical details". Text only.

export interface ResultHandlers {
  openDetails(stepId: string): void;
  /** Runs the failed step again in a new run (docs/design.md, “Retrying a step”). */
  retryStep(stepId: string, source: HTMLButtonElement): void;
  fix(fix: EndpointFix, source: HTMLButtonElement): void;
}

const FIX_BUTTONS: Record<EndpointFix, { text: string; label: string; primary: boolean }> = {
  setApiKey: { text: 'Set API key', label: 'Set the API key for the model endpoint', primary: true },
  openSettings: { text: 'Open endpoint settings', label: 'Open the cortex.llm settings (endpoint URL and model)', primary: true },
  retry: { text: 'Retry', label: 'Run the task again', primary: false },
};

/** The step a person should look at first: the first failed one, else the first blocked on its own. */
export function firstFailedStep(state: PlanState): StepState | undefined {
  const steps = state.stepOrder.map((id) => state.steps.get(id)).filter((s): s is StepState => s !== undefined);
  return (
    steps.find((s) => s.status === 'failed') ??
    steps.find((s) => s.status === 'blocked' && (!s.blockedBy || s.blockedBy === s.id)) ??
    steps.find((s) => s.status === 'blocked')
  );
}

export class ResultArea {
  readonly root: HTMLElement;
  private sig = '';

  constructor(private readonly handlers: ResultHandlers) {
    this.root = el('section', 'result');
    this.root.setAttribute('aria-label', 'Run result');
    this.root.hidden = true;
  }

  update(state: PlanState): void {
    const summary = state.status === 'failed' ? runFailureSummary(state) : '';
    const sig = `${state.status}|${state.answer ?? ''}|${state.error ?? ''}|${summary}`;
    if (sig === this.sig) return;
    this.sig = sig;
    this.root.replaceChildren();
    this.root.className = `result result-${state.status}`;
    this.root.removeAttribute('role');
    if (state.status === 'running') {
      this.root.hidden = true;
      return;
    }
    if (state.status === 'failed' || (state.status === 'cancelled' && state.error)) this.failure(state, summary);
    else if (state.status === 'cancelled') this.root.append(el('h2', 'result-title', 'Run cancelled'));
    if (state.answer !== undefined && state.answer !== '') {
      const answer = el('pre', 'result-text', state.answer);
      if (state.status === 'completed') this.root.append(el('h2', 'result-title', 'Answer'), answer);
      else {
        // The partial summary matters less than what failed: folded.
        const fold = el('details', 'result-more');
        fold.append(el('summary', '', 'Partial answer'), answer);
        this.root.append(fold);
      }
    }
    this.root.hidden = this.root.childElementCount === 0;
  }

  private failure(state: PlanState, summary: string): void {
    const cancelled = state.status === 'cancelled';
    this.root.setAttribute('role', 'alert');
    this.root.append(el('h2', 'result-title result-error-title', cancelled ? 'Run cancelled' : 'Run failed'));
    const fixes = cancelled ? [] : endpointFixes(state.error);
    // An endpoint error ended the run: its own sentence says what to fix. Otherwise the steps say what failed.
    const sentence = fixes.length > 0 || !summary ? (state.error ?? '') : summary;
    if (sentence) this.root.append(el('p', 'result-text result-error', sentence));
    const actions = el('div', 'result-actions');
    const failed = firstFailedStep(state);
    if (failed && fixes.length === 0) {
      if (canRetryInNewRun(state, failed)) {
        const retry = button('Retry step', 'btn btn-primary', `Retry step: ${failed.description}. ${RETRY_STEP_HINT}`, (_ev, self) =>
          this.handlers.retryStep(failed.id, self),
        );
        retry.title = RETRY_STEP_HINT;
        actions.append(retry);
      }
      actions.append(
        button('Open details', 'btn btn-secondary', `Open the details of the step that failed: ${failed.description}`, () =>
          this.handlers.openDetails(failed.id),
        ),
      );
    }
    for (const fix of fixes) {
      const spec = FIX_BUTTONS[fix];
      actions.append(button(spec.text, `btn ${spec.primary ? 'btn-primary' : 'btn-secondary'}`, spec.label, (_ev, self) => this.handlers.fix(fix, self)));
    }
    if (actions.childElementCount > 0) this.root.append(actions);
    if (state.error && sentence !== state.error) {
      const fold = el('details', 'result-more technical');
      fold.append(el('summary', '', 'Technical details'), el('pre', 'result-text mono', state.error));
      this.root.append(fold);
    }
  }
}
