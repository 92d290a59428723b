import type { ProposedStep } from '../plan/planApprovalSchema';
import type { ParsedPlan } from './planParsing';

// A checked plan in the planner's own reply form: what a plan file holds (`cortex plan --out`), what
// a rewrite after a denied plan approval shows the planner, and the steps a plan approval request
// proposes (docs/design.md, “Step scopes and plan approval”). Reading it back goes through the
// planner reply's reader, so a plan file is checked exactly like a planner reply.

/** The plan as `{title, steps, dependencies}` with each step's expects and scope. */
export function planDocument(plan: ParsedPlan): { title: string; steps: Array<Record<string, unknown>>; dependencies: Record<string, number[]> } {
  return {
    title: plan.title,
    steps: plan.steps.map((description, i) => ({
      description,
      ...(plan.expects?.[i] ? { expects: plan.expects[i] } : {}),
      ...(plan.scopes?.[i] ? { scope: plan.scopes[i] } : {}),
    })),
    dependencies: Object.fromEntries(Object.entries(plan.dependencies).map(([key, deps]) => [key, [...deps]])),
  };
}

/** The plan's steps as a plan approval request lists them. */
export function proposedSteps(plan: ParsedPlan): ProposedStep[] {
  return plan.steps.map((description, i) => ({
    description,
    ...(plan.expects?.[i] ? { expects: plan.expects[i] } : {}),
    ...(plan.scopes?.[i] ? { scope: plan.scopes[i] } : {}),
    dependsOn: [...(plan.dependencies[i] ?? [])],
  }));
}
