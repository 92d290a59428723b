import { z } from 'zod';
import { workspaceRelativeProblem } from './stepChecks';

// A step's scope (docs/design.md, “Step scopes and plan approval”): what the step may touch once a
// person approved the plan. `write`: globs of workspace files it may create, modify or delete;
// `commands`: command lines it may run (an entry, or the entry followed by more plain words).
// The model writes it and plan files carry it, so it is read strictly, like `expects`: unknown
// keys, wrong types, empty entries and globs that leave the workspace make the plan invalid with
// the reason in words. Plain data here; the matching lives in policy/stepScopeMatch.ts.

const MAX_ENTRIES = 50;

const WriteGlob = z
  .string('a write glob must be a string')
  .trim()
  .min(1, 'a write glob is empty')
  .max(500, 'a write glob is longer than 500 characters')
  .superRefine((glob, ctx) => {
    const problem = workspaceRelativeProblem(glob);
    if (problem) ctx.addIssue({ code: 'custom', message: `the glob ${JSON.stringify(glob)} ${problem}` });
  });

const CommandEntry = z
  .string('a command must be a string')
  .trim()
  .min(1, 'a command is empty')
  .max(1000, 'a command is longer than 1,000 characters')
  .refine((command) => !/[\0\n\r]/.test(command), 'a command must be one line');

const StepScopeObject = z.strictObject({
  write: z.array(WriteGlob, '"write" must be a list of globs').max(MAX_ENTRIES, `"write" has more than ${MAX_ENTRIES} globs`).optional(),
  commands: z.array(CommandEntry, '"commands" must be a list of command lines').max(MAX_ENTRIES, `"commands" has more than ${MAX_ENTRIES} entries`).optional(),
});

/** What a step may touch; both lists optional (absent: nothing of that kind). */
export type StepScope = z.infer<typeof StepScopeObject>;

/** A step's `scope`, with errors that name the field (`"write"[1]: …`). */
export const StepScopeSchema = z.unknown().transform((value, ctx): StepScope => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    ctx.addIssue({ code: 'custom', message: 'a scope must be an object {"write": [globs], "commands": [command lines]}' });
    return z.NEVER;
  }
  const parsed = StepScopeObject.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    const where = issue.path.length ? `${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `"${String(p)}"`)).join('')}: ` : '';
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown key ${issue.keys.map((k) => JSON.stringify(k)).join(', ')} in a scope (a scope has "write" and "commands")`
        : `${where}${issue.message}`;
    ctx.addIssue({ code: 'custom', message });
  }
  return z.NEVER;
});

/** The scope in one line, as the CLI and the prompts say it. */
export function describeScope(scope: StepScope | undefined): string {
  const write = scope?.write?.length ? scope.write.join(', ') : 'nothing';
  const commands = scope?.commands?.length ? scope.commands.map((c) => `\`${c}\``).join(', ') : 'none';
  return `write: ${write}; commands: ${commands}`;
}
