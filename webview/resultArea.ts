import type { PlanState } from '../src/core/plan/planTypes';
import { el } from './dom';

// The run's outcome under the graph: the final answer, or the error / cancellation. Text only.

export class ResultArea {
  readonly root: HTMLElement;
  private sig = '';

  constructor() {
    this.root = el('section', 'result');
    this.root.setAttribute('aria-label', 'Run result');
    this.root.hidden = true;
  }

  update(state: PlanState): void {
    const sig = `${state.status}|${state.answer ?? ''}|${state.error ?? ''}`;
    if (sig === this.sig) return;
    this.sig = sig;
    this.root.replaceChildren();
    this.root.className = `result result-${state.status}`;
    this.root.removeAttribute('role');
    if (state.status === 'running') {
      this.root.hidden = true;
      return;
    }
    if (state.answer !== undefined && state.answer !== '') {
      this.root.append(el('h2', 'result-title', state.status === 'completed' ? 'Answer' : 'Partial answer'), el('pre', 'result-text', state.answer));
    }
    if (state.error) {
      this.root.setAttribute('role', 'alert');
      this.root.append(
        el('h2', 'result-title result-error-title', state.status === 'cancelled' ? 'Run cancelled' : 'Run failed'),
        el('pre', 'result-text result-error', state.error),
      );
    } else if (state.status === 'cancelled') {
      this.root.append(el('h2', 'result-title', 'Run cancelled'));
    } else if (state.status === 'failed' && !state.answer) {
      this.root.append(el('h2', 'result-title result-error-title', 'Run failed'));
    }
    this.root.hidden = this.root.childElementCount === 0;
  }
}
