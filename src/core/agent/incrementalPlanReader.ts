import { JSONParser } from '@streamparser/json';
import { isRecord } from '../text/isRecord';
import type { z } from 'zod';
import { RelativeDependenciesSchema, ReplanStepEntrySchema, StepEntrySchema, type StepEntry } from './planParsing';
import { ActionSchema, UsesSchema } from './replanPrompt';

// Reads the planner's reply while it streams (docs/design.md, “The planner”, streamed planning):
// the text is fed to `@streamparser/json` as it arrives, and each part of the plan object is told
// as soon as it is complete — the title, the top-level `dependencies`, each step entry, the end of
// `steps`, the end of the object. The replanner's reply is read the same way (its `action`,
// `new_dependencies`, `uses` and `new_steps`). Nothing here decides what may start; the whole reply is still
// parsed and checked (parsePlannerReply, parseReplanReply) when the stream ends, which stays the only judge of the
// plan. When the text cannot be read this way (prose with braces before the plan, an invalid
// entry, a second attempt of the request), the reader stops telling and the end decides alone.

/** What the reader learned, in stream order. */
export type PlanPart =
  | { kind: 'title'; title: string }
  /** The top-level `dependencies` object, complete and well formed (indexes not yet checked against the plan). */
  | { kind: 'dependencies'; dependencies: Record<string, number[]> }
  /** One step entry, complete and well formed on its own. */
  | { kind: 'step'; index: number; entry: StepEntry }
  | { kind: 'steps_ended'; count: number }
  | { kind: 'object_ended' }
  /** The replanner's decision. */
  | { kind: 'action'; action: 'redesign' | 'give_up' }
  /** The replanner's top-level `uses` (keys not yet checked against the new steps). */
  | { kind: 'uses'; uses: Record<string, string[]> };

/** Where the parts of a reply are: the planner's plan, or the replanner's decision. */
interface ReplyForm {
  steps: string;
  dependencies: string;
  entry: z.ZodType<StepEntry>;
  /** Other top-level keys told when complete: their part, why the reader stops (a string), or nothing. */
  fields: Record<string, (value: unknown) => PlanPart | string | undefined>;
}

const PLAN_FORM: ReplyForm = {
  steps: 'steps',
  dependencies: 'dependencies',
  entry: StepEntrySchema,
  fields: { title: (value) => (typeof value === 'string' ? { kind: 'title', title: value.trim() } : undefined) },
};

const REPLAN_FORM: ReplyForm = {
  steps: 'new_steps',
  dependencies: 'new_dependencies',
  entry: ReplanStepEntrySchema,
  fields: {
    action: (value) => {
      const parsed = ActionSchema.safeParse(value);
      return parsed.success ? { kind: 'action', action: parsed.data } : '"action" is not "redesign" or "give_up"';
    },
    uses: (value) => {
      const parsed = UsesSchema.safeParse(value);
      return parsed.success ? { kind: 'uses', uses: parsed.data } : '"uses" is not a valid uses object';
    },
  },
};

const REASONING_BLOCK = /<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi;
const OPEN_REASONING = /<(think|thinking|reasoning)>/i;

export class IncrementalPlanReader {
  private before = '';
  private parser: JSONParser | undefined;
  private done = false;
  private stopReason: string | undefined;
  private readonly parts: PlanPart[] = [];

  private readonly form: ReplyForm;

  /**
   * @param maxSteps entries past this many are not told (the plan will be refused at the end).
   * @param reply the planner's plan (default) or the replanner's decision.
   */
  constructor(
    private readonly maxSteps = 100,
    reply: 'plan' | 'replan' = 'plan',
  ) {
    this.form = reply === 'plan' ? PLAN_FORM : REPLAN_FORM;
  }

  /** Why the reader stopped telling parts before the object ended, if it did. */
  get stopped(): string | undefined {
    return this.stopReason;
  }

  /** True once the plan object ended or the reader stopped: later text is ignored (garbage after the JSON). */
  get finished(): boolean {
    return this.done;
  }

  /** Stops telling parts; the end of the stream decides alone. */
  stop(reason: string): void {
    if (this.done) return;
    this.done = true;
    this.stopReason = reason;
  }

  /** Feeds the next piece of the reply; returns the parts it completed, in order. */
  push(text: string): PlanPart[] {
    if (this.done || text === '') return [];
    if (!this.parser) {
      // Before the object: a reasoning block or a code fence's opening line or a sentence may come
      // first; the object starts at the first `{` outside reasoning.
      this.before += text;
      const visible = this.before.replace(REASONING_BLOCK, '');
      if (OPEN_REASONING.test(visible)) return [];
      const start = visible.indexOf('{');
      if (start === -1) return [];
      this.parser = this.createParser();
      text = visible.slice(start);
      this.before = '';
    }
    try {
      this.parser.write(text);
    } catch (error) {
      this.stop(`the reply could not be read as it streamed: ${(error as Error).message}`);
    }
    return this.parts.splice(0);
  }

  private createParser(): JSONParser {
    const form = this.form;
    const keys = Object.keys(form.fields);
    const parser = new JSONParser({ paths: ['$', `$.${form.dependencies}`, `$.${form.steps}`, `$.${form.steps}.*`, ...keys.map((key) => `$.${key}`)] });
    parser.onValue = ({ value, key, stack }) => {
      if (this.done) return;
      if (stack.length === 0) return this.onRoot(value);
      if (stack.length === 1 && typeof key === 'string' && Object.hasOwn(form.fields, key)) {
        const part = form.fields[key](value);
        if (typeof part === 'string') this.stop(part);
        else if (part) this.parts.push(part);
      } else if (stack.length === 1 && key === form.dependencies) {
        const parsed = RelativeDependenciesSchema.safeParse(value);
        if (parsed.success) this.parts.push({ kind: 'dependencies', dependencies: parsed.data });
        else this.stop(`"${form.dependencies}" is not a valid dependencies object`);
      } else if (stack.length === 1 && key === form.steps) {
        if (Array.isArray(value)) this.parts.push({ kind: 'steps_ended', count: value.length });
        else this.stop(`"${form.steps}" is not a list`);
      } else if (stack.length === 2 && stack[1].key === form.steps && typeof key === 'number') {
        this.onStep(key, value);
      }
    };
    // Errors reach push's catch: write throws when no handler is set.
    return parser;
  }

  private onStep(index: number, value: unknown): void {
    if (index >= this.maxSteps) return this.stop(`the plan has more than ${this.maxSteps} steps`);
    const parsed = this.form.entry.safeParse(value);
    if (!parsed.success) return this.stop(`${this.form.steps}[${index}] is not a valid step`);
    this.parts.push({ kind: 'step', index, entry: parsed.data });
  }

  private onRoot(value: unknown): void {
    if (!isRecord(value)) return this.stop('the reply does not start with a plan object');
    this.parts.push({ kind: 'object_ended' });
    this.done = true;
  }
}
