import { z } from 'zod';
import { StepExpectsSchema } from './stepChecks';
import { StepScopeSchema } from './stepScope';

// Plan approval as events (docs/design.md, “Step scopes and plan approval”): in the `plan`
// approval mode a person approves the planner's plan (or a replan that needs more than the
// approved scopes) once, instead of every call. The request carries the proposed steps themselves
// (they join the plan only once approved, so a denied plan leaves nothing to undo), and the answer
// quotes the request id, like a tool approval. Plain data: the reducer and the webview fold it.

/** One step as proposed: indexes are positions in the proposal's `steps`. */
export const ProposedStepSchema = z.object({
  description: z.string(),
  expects: StepExpectsSchema.optional(),
  scope: StepScopeSchema.optional(),
  dependsOn: z.array(z.number().int().nonnegative()),
});
export type ProposedStep = z.infer<typeof ProposedStepSchema>;

/** What a widening replan's new steps need beyond the approved scopes, by proposed step index. */
export const ScopeWideningSchema = z.object({
  index: z.number().int().nonnegative(),
  write: z.array(z.string()),
  commands: z.array(z.string()),
});
export type ScopeWidening = z.infer<typeof ScopeWideningSchema>;

export const PlanApprovalRequestedFields = {
  requestId: z.string(),
  /** `plan`: the planner's plan (or a plan file); `replan`: a redesign that needs more than was approved. */
  kind: z.enum(['plan', 'replan']),
  title: z.string().optional(),
  steps: z.array(ProposedStepSchema),
  /** For a replan: the step whose redesign this is. */
  failedStepId: z.string().optional(),
  /** For a replan: what is new. */
  widening: z.array(ScopeWideningSchema).optional(),
  /** 1 for the first plan, 2 and 3 for plans rewritten after a denial with feedback. */
  attempt: z.number().int().positive(),
};

export const PlanApprovalAnsweredFields = {
  requestId: z.string(),
  approved: z.boolean(),
  /** Why it was denied (up to 4,000 characters); a plan denied with feedback is rewritten. */
  feedback: z.string().optional(),
  /** Who answered: panel, cli --approve plan, cli-tty, cli no-tty… */
  source: z.string().optional(),
};

/** A request as the reducer keeps it, with what became of it. */
export const PlanApprovalStateSchema = z.object({
  ...PlanApprovalRequestedFields,
  /** `withdrawn`: a newer request replaced it unanswered (a resumed run asks again). */
  state: z.enum(['pending', 'approved', 'denied', 'withdrawn']),
  askedAt: z.number(),
  feedback: z.string().optional(),
  answeredBy: z.string().optional(),
});
export type PlanApprovalState = z.infer<typeof PlanApprovalStateSchema>;
