import type { CheckRecord, ProofVerdict } from '../src/core/plan/events';
import type { StepState } from '../src/core/plan/planTypes';
import { button, el, pre } from './dom';
import { icon, type Codicon } from './icons';

// How a step proved its work, in the panel (docs/design.md, “The verifier and how a step ends”):
// a small proof badge on each node (verified / unverified / failed) and, in the details pane,
// every check of the verifier with ✓ or ✗, its evidence (the call, the file's diff, the command's
// output) and, for an unbacked claim, the sentence of the answer. Kept apart from the node and
// details renderers, which only call `setProofBadge` and `renderProofChecks`.

/** The step's proof, or undefined while it has no verdict. Older traces have no `verdict`: read from `passed`. */
export function proofOf(step: StepState): ProofVerdict | undefined {
  const v = step.verdict;
  if (!v) return undefined;
  if (!v.passed) return 'failed';
  return v.verdict ?? 'verified';
}

const PROOF_LABEL: Record<ProofVerdict, string> = {
  verified: 'verified: every check of this step held',
  unverified: 'unverified: nothing was declared or claimed to check',
  failed: 'failed: a check or a claim did not hold',
};
const PROOF_ICON: Record<ProofVerdict, Codicon> = { verified: 'pass', unverified: 'circle-large-outline', failed: 'error' };

/** One check as the details pane shows it. */
export interface ProofCheckView {
  passed: boolean;
  /** `claim` for a sentence of the answer, else the check in one line. */
  title: string;
  /** The claim's sentence, quoted. */
  sentence?: string;
  detail: string;
  callId?: string;
  /** A file whose diff the check points to. */
  path?: string;
  output?: string;
  exitCode?: number | null;
}

export function proofCheckViews(step: StepState): ProofCheckView[] {
  return (step.verdict?.checks ?? []).map((record: CheckRecord) => ({
    passed: record.passed,
    title: record.kind === 'claim' ? (record.passed ? 'Claim backed by the record' : 'Unbacked claim') : record.check,
    ...(record.kind === 'claim' ? { sentence: record.check } : {}),
    detail: record.detail,
    ...(record.evidence?.callId ? { callId: record.evidence.callId } : {}),
    ...(record.evidence?.path && record.evidence.changeSeq !== undefined ? { path: record.evidence.path } : {}),
    ...(record.evidence?.output !== undefined ? { output: record.evidence.output } : {}),
    ...(record.evidence?.exitCode !== undefined ? { exitCode: record.evidence.exitCode } : {}),
  }));
}

/** Keeps the node's proof badge (one span after its id) in step with `proof`. */
export function setProofBadge(head: HTMLElement, proof: ProofVerdict | undefined): void {
  let badge = head.querySelector<HTMLSpanElement>(':scope > .proof-badge');
  if (!proof) {
    badge?.remove();
    return;
  }
  if (badge?.dataset.proof === proof) return;
  if (!badge) {
    badge = el('span', 'proof-badge');
    head.insertBefore(badge, head.querySelector(':scope > .node-id')?.nextSibling ?? null);
  }
  badge.className = `proof-badge proof-${proof}`;
  badge.dataset.proof = proof;
  badge.title = PROOF_LABEL[proof];
  badge.setAttribute('aria-label', `proof ${PROOF_LABEL[proof]}`);
  badge.replaceChildren(icon(PROOF_ICON[proof], 'proof-glyph'), el('span', 'proof-text', proof));
}

export interface ProofCheckHandlers {
  /** Shows the call in the step's tool history. */
  showCall(callId: string): void;
  /** Opens the diff of a file the step changed. */
  openDiff(path: string): void;
}

/** The list of checks under the verifier's verdict, in the details pane. */
export function renderProofChecks(section: HTMLElement, step: StepState, handlers: ProofCheckHandlers): void {
  const views = proofCheckViews(step);
  const proof = proofOf(step);
  if (proof) {
    const line = el('p', `proof-line proof-${proof}`);
    line.append(icon(PROOF_ICON[proof], 'proof-glyph'), document.createTextNode(` ${PROOF_LABEL[proof]}`));
    section.append(line);
  }
  if (views.length === 0) return;
  const list = el('ul', 'proof-checks');
  list.setAttribute('aria-label', 'Checks of the verifier');
  for (const view of views) {
    const item = el('li', `proof-check ${view.passed ? 'proof-check-held' : 'proof-check-failed'}`);
    item.append(icon(view.passed ? 'check' : 'close', 'proof-check-glyph', view.passed ? 'held' : 'failed'), el('span', 'proof-check-title', view.title));
    if (view.sentence !== undefined) item.append(el('blockquote', 'proof-claim', view.sentence));
    item.append(el('div', 'proof-check-detail', view.detail));
    const evidence = el('div', 'proof-evidence');
    if (view.callId) {
      const id = view.callId;
      evidence.append(button(`call ${id}`, 'link mono', `Show call ${id} in the tool history`, () => handlers.showCall(id)));
    }
    if (view.path) {
      const path = view.path;
      evidence.append(button(path, 'link mono', `Open the diff of ${path}`, () => handlers.openDiff(path)));
    }
    if (view.exitCode !== undefined) evidence.append(el('span', 'mono', view.exitCode === null ? 'killed by a signal' : `exit ${view.exitCode}`));
    if (evidence.childElementCount > 0) item.append(evidence);
    if (view.output) {
      const output = el('details', 'proof-output');
      output.append(el('summary', undefined, 'Command output'), pre(view.output));
      item.append(output);
    }
    list.append(item);
  }
  section.append(list);
}
