import type { PlanApprovalState } from '../core/plan/planApprovalSchema';
import type { PlanApprovalBroker } from '../core/policy/planApprovalBroker';
import { oneLine } from '../core/text/clip';

// A plan approval while the run's panel is hidden (docs/design.md, “Step scopes and plan
// approval”): the plan is answered in the panel, where its steps, scopes and checks are shown, so
// the notification only says that it waits and offers to show it. Decided once per request, when it
// arrives, as for tool approvals.

export interface PlanApprovalNoticeSurface {
  isPanelVisible(runId: string): boolean;
  /** Shows the notification; resolves true when "Show plan" was pressed. */
  notify(text: string): PromiseLike<boolean>;
  showPanel(runId: string): void;
}

/** The notification's text for a request. */
export function planApprovalNoticeText(request: PlanApprovalState, task: string): string {
  return request.kind === 'plan'
    ? `Cortex: the plan for "${oneLine(task, 80)}" (${request.steps.length} step${request.steps.length === 1 ? '' : 's'}) waits for your approval.`
    : `Cortex: the redesign of ${request.failedStepId ?? 'a step'} needs more than the approved plan and waits for your approval.`;
}

/** Follows the run's plan approvals until the returned function is called. */
export function watchPlanApprovals(plans: PlanApprovalBroker, runId: string, task: string, surface: PlanApprovalNoticeSurface): () => void {
  const seen = new Set<string>();
  return plans.onDidChange((request) => {
    if (!request || seen.has(request.requestId)) return;
    seen.add(request.requestId);
    if (surface.isPanelVisible(runId)) return;
    void Promise.resolve(surface.notify(planApprovalNoticeText(request, task))).then(
      (show) => {
        if (show) surface.showPanel(runId);
      },
      () => undefined,
    );
  });
}
