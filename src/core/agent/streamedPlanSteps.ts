import type { EventLog } from '../plan/eventLog';
import type { StepIdAllocator } from '../plan/planOperations';
import type { PlanPart } from './incrementalPlanReader';
import type { ParsedPlan, StepEntry } from './planParsing';

// Turns the parts of a streaming plan into `step_added` events, each as soon as the step is
// settled (docs/design.md, “The planner”): its entry is complete, its dependencies are known
// (its own `dependsOn`, or the top-level `dependencies` once that arrived, or the end of the
// object when neither came) and every step it depends on has been added. A step naming a step
// not seen yet waits for it. At the end the whole plan is compared with what was added: a step
// added with other dependencies, description or checks than the final plan gives it means the
// streamed steps cannot stand.

export class StreamedPlanSteps {
  private title: string | undefined;
  /** The first step was added, with a partial `plan_created`. */
  private titleSaid = false;
  private topDependencies: Record<string, number[]> | undefined;
  /** No top-level `dependencies` can come any more (it arrived, or the object ended). */
  private dependenciesKnown = false;
  private readonly entries = new Map<number, StepEntry>();
  private readonly ids = new Map<number, string>();
  /** Index → the indexes it was added with. */
  private readonly added = new Map<number, number[]>();

  constructor(
    private readonly log: EventLog,
    private readonly newId: StepIdAllocator,
  ) {}

  /** Ids of the steps added so far, in the order they were added. */
  get addedIds(): string[] {
    return [...this.added.keys()].map((index) => this.ids.get(index)!);
  }

  /** Takes one part; returns how many steps it added. */
  take(part: PlanPart): number {
    switch (part.kind) {
      case 'title':
        this.title = part.title || undefined;
        return 0;
      case 'dependencies':
        this.topDependencies = part.dependencies;
        this.dependenciesKnown = true;
        return this.flush();
      case 'step':
        this.entries.set(part.index, part.entry);
        // Ids follow the order of the entries, whichever step is added first.
        if (!this.ids.has(part.index)) this.ids.set(part.index, this.newId.next());
        return this.flush();
      case 'object_ended':
        this.dependenciesKnown = true;
        return this.flush();
      case 'steps_ended':
        return 0;
    }
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
      if (!this.ids.has(index)) this.ids.set(index, this.newId.next());
    });
    this.topDependencies = undefined;
    this.dependenciesKnown = true;
    this.flush();
    // The plan is whole: said again without `partial` (with its final title).
    this.log.append({ type: 'plan_created', title: plan.title });
  }

  private dependenciesOf(index: number, entry: StepEntry): number[] | undefined {
    if (entry.dependsOn === undefined && !this.dependenciesKnown) return undefined;
    const top = this.topDependencies?.[String(index)] ?? [];
    return [...new Set([...top, ...(entry.dependsOn ?? [])])];
  }

  /** Adds the settled steps, repeatedly: adding one may settle another waiting for it. */
  private flush(): number {
    let count = 0;
    for (let progress = true; progress;) {
      progress = false;
      for (const [index, entry] of this.entries) {
        if (this.added.has(index)) continue;
        const deps = this.dependenciesOf(index, entry);
        if (!deps || deps.some((dep) => !this.added.has(dep))) continue;
        this.add(index, entry, deps);
        count++;
        progress = true;
      }
    }
    return count;
  }

  private add(index: number, entry: StepEntry, deps: number[]): void {
    if (!this.titleSaid) {
      this.titleSaid = true;
      this.log.append({ type: 'plan_created', title: this.title ?? 'Plan', partial: true });
    }
    const stepId = this.ids.get(index)!;
    this.added.set(index, deps);
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
  }
}
