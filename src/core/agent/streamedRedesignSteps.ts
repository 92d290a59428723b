import type { EventLog } from '../plan/eventLog';
import { normalizeRelativeDependencies } from '../plan/planGraph';
import { PlanInvariantError, removeStepsEvent, streamedRedesignStepEvents, type StepIdAllocator } from '../plan/planOperations';
import { redesignOutsideDependencies } from '../plan/redesignDependencies';
import type { PlanPart } from './incrementalPlanReader';
import type { StepEntry } from './planParsing';
import type { ReplanResult } from './replanPrompt';
import { StreamedSteps } from './streamedSteps';

// The new steps of a redesign that streams (docs/design.md, “The replanner”): each joins the plan
// (streamedRedesignStepEvents) once settled (streamedSteps.ts), where settled also means its kept
// dependencies are known: its own `dependsOn` or `uses` make its entry complete on its own, else it
// waits until the top-level `new_dependencies` and `uses` both arrived or the object ended. A new
// step waits for the kept steps redesignOutsideDependencies gives it, as a redesign read whole does.
// At the end the checked reply is compared with what joined; when it agrees the rest joins and the
// failed subgraph leaves (`subgraph_replaced`).

export interface RedesignTarget {
  failedStepId: string;
  /** The failed step and its downstream. */
  replacedStepIds: readonly string[];
}

export class StreamedRedesignSteps extends StreamedSteps {
  private topUses: Record<string, string[]> | undefined;
  private usesKnown = false;

  constructor(
    private readonly log: EventLog,
    newId: StepIdAllocator,
    private readonly target: RedesignTarget,
  ) {
    super(newId);
  }

  /** Why a step could not join while the reply streamed (the end decides), if one could not. */
  get stopReason(): string | undefined {
    return this.stopped;
  }

  protected takeOther(part: PlanPart): number {
    if (part.kind !== 'uses') return 0;
    this.topUses = part.uses;
    this.usesKnown = true;
    return this.flush();
  }

  protected override settled(entry: StepEntry): boolean {
    return entry.dependsOn !== undefined || entry.uses !== undefined || (this.dependenciesKnown && this.usesKnown);
  }

  protected override objectEnded(): void {
    super.objectEnded();
    this.usesKnown = true;
  }

  private usesOf(index: number, entry: StepEntry | undefined): string[] {
    return [...new Set([...(this.topUses?.[String(index)] ?? []), ...(entry?.uses ?? [])])];
  }

  /**
   * Each new step's kept dependencies, with why, from redesignOutsideDependencies. A step's result
   * depends only on its own entry and on the steps it depends on, so the steps not known yet are
   * given as empty entries.
   */
  private outsideDependencies(descriptions: string[], internal: number[][], uses: Record<number, string[]>) {
    return redesignOutsideDependencies(this.log.state, { ...this.target, newSteps: descriptions, internal, uses });
  }

  /** Its dependencies as step ids, checked: kept dependencies are live steps that stay, not new ones. */
  private dependsOnIds(internal: readonly number[], outside: readonly string[]): string[] {
    const ownIds = new Set(this.ids.values());
    const { state } = this.log;
    for (const dep of outside) {
      if (ownIds.has(dep)) throw new PlanInvariantError(`"uses" names ${dep}, a new step of this redesign: it lists kept steps (use "dependsOn" for new ones)`);
      if (!state.steps.has(dep)) throw new PlanInvariantError(`a new step cannot depend on "${dep}": it is not a live step of the plan`);
      if (this.target.replacedStepIds.includes(dep)) throw new PlanInvariantError(`a new step cannot depend on "${dep}": that step is being removed`);
    }
    return [...internal.map((dep) => this.ids.get(dep)!), ...outside];
  }

  protected join(index: number, entry: StepEntry, deps: number[]): boolean {
    const count = Math.max(...this.entries.keys()) + 1;
    const descriptions = Array.from({ length: count }, (_, i) => this.entries.get(i)?.description ?? '');
    const internal = Array.from({ length: count }, (_, i) => (i === index ? deps : (this.added.get(i) ?? [])));
    const uses: Record<number, string[]> = {};
    for (let i = 0; i < count; i++) uses[i] = this.usesOf(i, this.entries.get(i));
    const outside = this.outsideDependencies(descriptions, internal, uses)[index];
    try {
      const events = streamedRedesignStepEvents(this.log.state, {
        ...this.target,
        stepId: this.ids.get(index)!,
        description: entry.description,
        ...(entry.expects ? { expects: entry.expects } : {}),
        ...(entry.scope ? { scope: entry.scope } : {}),
        dependsOn: this.dependsOnIds(deps, outside.deps),
        waitsFor: outside.why,
      });
      for (const event of events) this.log.append(event);
      return true;
    } catch (error) {
      if (!(error instanceof PlanInvariantError)) throw error;
      this.stopped = `new step ${index} cannot join: ${error.message}`;
      return false;
    }
  }

  /**
   * What the checked redesign says about the steps that joined, in words, or undefined when it
   * agrees. Throws PlanInvariantError when the redesign cannot be applied at all (a kept step it
   * uses is not a live step that stays).
   */
  disagreement(result: ReplanResult): string | undefined {
    const { descriptions, internal, outside } = this.finalShape(result);
    for (let index = 0; index < descriptions.length; index++) this.dependsOnIds(internal[index], outside[index].deps);
    for (const [index] of this.added) {
      const entry = this.entries.get(index)!;
      const stepId = this.ids.get(index)!;
      if (index >= descriptions.length) return `new step ${index} is not in the final reply`;
      if (descriptions[index] !== entry.description) return `new step ${index} was read as "${entry.description}" but the reply says "${descriptions[index]}"`;
      if (JSON.stringify(result.new_expects?.[index]) !== JSON.stringify(entry.expects)) return `the checks of new step ${index} changed`;
      if (JSON.stringify(result.new_scopes?.[index]) !== JSON.stringify(entry.scope)) return `the scope of new step ${index} changed`;
      const joined = [...(this.log.state.steps.get(stepId)?.dependsOn ?? [])].sort();
      const final = this.dependsOnIds(internal[index], outside[index].deps).sort();
      if (JSON.stringify(joined) !== JSON.stringify(final))
        return `new step ${index} joined after [${joined.join(', ')}], but the reply makes it wait for [${final.join(', ')}]`;
    }
    return undefined;
  }

  /**
   * The checked redesign agrees with what joined: the rest of its steps join and the failed subgraph
   * leaves (`subgraph_replaced` naming every new step). `record` is the replan record's attempt,
   * maximum and reason.
   */
  complete(result: ReplanResult, record: { attempt: number; maxAttempts: number; reason: string }): void {
    result.new_steps.forEach((description, index) => {
      // The reply's `uses` in one place: what later steps inherit through earlier ones is read from it.
      const joined = this.entries.get(index);
      if (this.added.has(index) && joined) {
        this.entries.set(index, { ...joined, uses: result.uses[index] ?? [] });
        return;
      }
      const expects = result.new_expects?.[index];
      const scope = result.new_scopes?.[index];
      this.entries.set(index, {
        description,
        ...(expects ? { expects } : {}),
        ...(scope ? { scope } : {}),
        dependsOn: result.new_dependencies[index] ?? [],
        uses: result.uses[index] ?? [],
      });
      this.idOf(index);
    });
    this.topDependencies = undefined;
    this.topUses = undefined;
    this.dependenciesKnown = true;
    this.usesKnown = true;
    const newStepIds = result.new_steps.map((_, index) => this.ids.get(index)!);
    // Checked before anything more is appended: the failed subgraph can still leave.
    const replaced = removeStepsEvent(this.log.state, { ...record, failedStepId: this.target.failedStepId, newStepIds });
    this.flush();
    if (this.stopped !== undefined) throw new PlanInvariantError(this.stopped);
    this.log.append(replaced);
  }

  private finalShape(result: ReplanResult) {
    const descriptions = result.new_steps;
    const normalized = normalizeRelativeDependencies(descriptions.length, result.new_dependencies);
    if ('problem' in normalized) throw new PlanInvariantError(`new steps: ${normalized.problem.message}`);
    const internal = normalized.deps;
    return { descriptions, internal, outside: this.outsideDependencies(descriptions, internal, result.uses) };
  }
}
