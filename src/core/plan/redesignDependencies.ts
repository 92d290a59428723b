import type { PlanState } from './planTypes';

// Which kept steps a redesigned step waits for (docs/design.md, "The replanner"): what its replan
// says, plus only the outside steps whose outputs it uses, decided conservatively from the plan;
// never every outside dependency of the steps it replaced.

/** One new step's dependencies outside its batch, each with why it waits for it (shown in its details). */
export interface OutsideDependencies {
  deps: string[];
  why: Record<string, string>;
}

export interface RedesignDependencyInput {
  failedStepId: string;
  /** The failed step and its downstream, leaving the plan. */
  replacedStepIds: readonly string[];
  newSteps: readonly string[];
  /** Dependencies inside the batch: `internal[i]` are indexes into `newSteps`. */
  internal: readonly (readonly number[])[];
  /** Kept steps whose outputs the replan says a new step uses: index → step ids. */
  uses?: Readonly<Record<number, readonly string[]>>;
}

/** Words too common in step descriptions to say two steps are about the same thing. */
const COMMON_WORDS = new Set(
  'about after again also before check code create each ensure every file files from into make more must only same step steps that their them then there they this those update using what when where which while with without work write'.split(
    ' ',
  ),
);

/** A description's distinctive terms: file names and paths whole, and words of four letters or more. */
export function distinctiveTerms(description: string): Set<string> {
  const terms = new Set<string>();
  for (const raw of description.toLowerCase().split(/[\s,;:()"'`[\]{}<>]+/)) {
    const token = raw.replace(/^[.!?]+|[.!?]+$/g, '');
    if (/[./\\]/.test(token) && /\w/.test(token)) terms.add(token);
    for (const word of token.split(/[^a-z0-9_-]+/)) if (word.length >= 4 && !COMMON_WORDS.has(word)) terms.add(word);
  }
  return terms;
}

function shareATerm(a: ReadonlySet<string>, b: ReadonlySet<string>): string | undefined {
  for (const term of a) if (b.has(term)) return term;
  return undefined;
}

/**
 * Each new step's outside dependencies:
 * - the kept steps its replan names in `uses`;
 * - the outside dependencies of a replaced step it continues, that is whose description shares a
 *   distinctive term with its own (a new "Update CHANGELOG.md" keeps what the old CHANGELOG step
 *   waited for, and only that); and a kept step its description names the same way;
 * - a new step that waits for nothing else, neither inside nor outside its batch, waits for the
 *   failed step's own dependencies: it most likely redoes that step's work, and those steps have
 *   all finished (the failed step ran after them), so this costs no waiting.
 * Dependencies a step already waits for through an earlier new step are left out (no tangle).
 */
export function redesignOutsideDependencies(state: PlanState, input: RedesignDependencyInput): OutsideDependencies[] {
  const replaced = new Set(input.replacedStepIds);
  const outsideOf = (stepId: string) => (state.steps.get(stepId)?.dependsOn ?? []).filter((dep) => !replaced.has(dep));
  const describe = (stepId: string) => `${stepId} “${state.steps.get(stepId)?.description.slice(0, 60) ?? ''}”`;
  const replacedTerms = input.replacedStepIds.map((id) => ({ id, terms: distinctiveTerms(state.steps.get(id)?.description ?? '') }));
  const candidates = [...new Set(input.replacedStepIds.flatMap(outsideOf))];
  const candidateTerms = candidates.map((id) => ({ id, terms: distinctiveTerms(state.steps.get(id)?.description ?? '') }));

  const own = input.newSteps.map((description, index): OutsideDependencies => {
    const why: Record<string, string> = {};
    const add = (dep: string, reason: string) => {
      why[dep] ??= reason;
    };
    for (const dep of input.uses?.[index] ?? []) add(dep, 'the replan says this step uses its output');
    const terms = distinctiveTerms(description);
    for (const old of replacedTerms) {
      const term = shareATerm(terms, old.terms);
      if (!term) continue;
      for (const dep of outsideOf(old.id)) add(dep, `it continues the replaced ${describe(old.id)} (both about “${term}”), which used its output`);
    }
    for (const kept of candidateTerms) {
      const term = shareATerm(terms, kept.terms);
      if (term) add(kept.id, `both are about “${term}”`);
    }
    if (Object.keys(why).length === 0 && input.internal[index].length === 0)
      for (const dep of outsideOf(input.failedStepId)) add(dep, `it redoes the work of the failed ${describe(input.failedStepId)}, which used its output`);
    return { deps: Object.keys(why), why };
  });

  // Outside steps each new step already waits for through its dependencies in the batch.
  const reach: Array<Set<string> | undefined> = [];
  const reachOf = (index: number, seen = new Set<number>()): Set<string> => {
    const cached = reach[index];
    if (cached) return cached;
    seen.add(index);
    const all = new Set(own[index].deps);
    for (const dep of input.internal[index]) if (!seen.has(dep)) for (const id of reachOf(dep, seen)) all.add(id);
    reach[index] = all;
    return all;
  };
  return own.map((step, index) => {
    const inherited = new Set<string>();
    for (const dep of input.internal[index]) for (const id of reachOf(dep)) inherited.add(id);
    const deps = step.deps.filter((dep) => !inherited.has(dep));
    return { deps, why: Object.fromEntries(deps.map((dep) => [dep, step.why[dep]])) };
  });
}
