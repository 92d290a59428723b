import type { EventLog } from '../plan/eventLog';
import type { StepIdAllocator } from '../plan/planOperations';
import type { PlanPart } from './incrementalPlanReader';
import type { ParsedPlan, StepEntry } from './planParsing';
import { StreamedSteps } from './streamedSteps';

// Turns the parts of a streaming plan into `step_added` events, each as soon as the step is
// settled (streamedSteps.ts, docs/design.md, “The planner”). At the end the whole plan is compared
// with what was added: a step added with other dependencies, description or checks than the final
// plan gives it means the streamed steps cannot stand.

export class StreamedPlanSteps extends StreamedSteps {
  private title: string | undefined;
  /** The first step was added, with a partial `plan_created`. */
  private titleSaid = false;

  constructor(
    private readonly log: EventLog,
    newId: StepIdAllocator,
  ) {
    super(newId);
  }

  protected takeOther(part: PlanPart): number {
    if (part.kind === 'title') this.title = part.title || undefined;
    return 0;
  }

  /** What the final plan says about the steps already added, in words, or undefined when it agrees. */
  disagreement(plan: ParsedPlan): string | undefined {
    for (const [index, deps] of this.added) {
      const entry = this.entries.get(index)!;
      if (index >= plan.steps.length) return `step ${index} is not in the final plan`;
      if (plan.steps[index] !== entry.description) return `step ${index} was read as "${entry.description}" but the plan says "${plan.steps[index]}"`;
      if (JSON.stringify(plan.expects?.[index]) !== JSON.stringify(entry.expects)) return `the checks of step ${index} changed`;
      if (JSON.stringify(plan.scopes?.[index]) !== JSON.stringify(entry.scope)) return `the scope of step ${index} changed`;
      const finalDeps = [...(plan.dependencies[index] ?? [])].sort((a, b) => a - b);
      if (JSON.stringify(finalDeps) !== JSON.stringify([...deps].sort((a, b) => a - b)))
        return `step ${index} started after steps [${deps.join(', ')}], but the plan makes it wait for [${finalDeps.join(', ')}]`;
    }
    return undefined;
  }

  /** Adds every step of the checked plan not added yet (the plan agrees with what was added). */
  complete(plan: ParsedPlan): void {
    this.title = plan.title;
    plan.steps.forEach((description, index) => {
      if (this.added.has(index)) return;
      const expects = plan.expects?.[index];
      const scope = plan.scopes?.[index];
      this.entries.set(index, { description, ...(expects ? { expects } : {}), ...(scope ? { scope } : {}), dependsOn: plan.dependencies[index] ?? [] });
      this.idOf(index);
    });
    this.topDependencies = undefined;
    this.dependenciesKnown = true;
    this.flush();
    // The plan is whole: said again without `partial` (with its final title).
    this.log.append({ type: 'plan_created', title: plan.title });
  }

  protected join(index: number, entry: StepEntry, deps: number[]): boolean {
    if (!this.titleSaid) {
      this.titleSaid = true;
      this.log.append({ type: 'plan_created', title: this.title ?? 'Plan', partial: true });
    }
    const stepId = this.ids.get(index)!;
    this.log.append({
      type: 'step_added',
      stepId,
      description: entry.description,
      ...(entry.expects ? { expects: entry.expects } : {}),
      ...(entry.scope ? { scope: structuredClone(entry.scope) } : {}),
      dependsOn: deps.map((dep) => this.ids.get(dep)!),
      lineage: stepId,
      replanAttempts: 0,
      origin: 'planner',
    });
    return true;
  }
}
