import { z } from 'zod';

// A step's postconditions (docs/design.md, “The planner” and “The verifier and how a step ends”):
// the checks a plan declares in a step's `expects`, with exactly these keys. The model wrote them,
// so they are read strictly: an unknown key, a wrong type, a bad regular expression or a path that
// leaves the workspace makes the plan invalid, with a reason the planner can act on. The same
// schema reads them back from a trace (step_added), which is just as untrusted.

/** The check kinds, by their leading key, as the prompts and the errors name them. */
export const CHECK_KINDS = 'changed, exists, absent, contains+text or contains+pattern, command+exit, called, answer';

/** A path the plan may name: relative, '/'-separated, and not climbing out of the workspace. */
export function workspaceRelativeProblem(path: string): string | undefined {
  if (path.includes('\0')) return 'contains a NUL character';
  if (path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:/.test(path) || path.startsWith('~'))
    return 'must be relative to the workspace (it names a place outside it)';
  // Walk the segments (no node:path: the webview folds these events too).
  let depth = 0;
  for (const segment of path.split(/[\\/]/)) {
    if (segment === '..') depth--;
    else if (segment !== '.' && segment !== '') depth++;
    if (depth < 0) return 'leaves the workspace ("..")';
  }
  return undefined;
}

const WorkspacePath = z
  .string('a path must be a string')
  .trim()
  .min(1, 'a path is empty')
  .superRefine((path, ctx) => {
    const problem = workspaceRelativeProblem(path);
    if (problem) ctx.addIssue({ code: 'custom', message: `the path ${JSON.stringify(path)} ${problem}` });
  });

const Regex = z
  .string('a pattern must be a string')
  .min(1, 'a pattern is empty')
  .max(1000, 'a pattern is longer than 1,000 characters')
  .superRefine((pattern, ctx) => {
    try {
      new RegExp(pattern);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(pattern)} is not a valid regular expression: ${(error as Error).message}` });
    }
  });

const KIND_SCHEMAS = {
  changed: z.strictObject({ changed: WorkspacePath }),
  exists: z.strictObject({ exists: WorkspacePath }),
  absent: z.strictObject({ absent: WorkspacePath }),
  contains: z.union([
    z.strictObject({ contains: WorkspacePath, text: z.string('"text" must be a string').min(1, '"text" is empty') }),
    z.strictObject({ contains: WorkspacePath, pattern: Regex }),
  ]),
  command: z.strictObject({
    command: z.string('a command must be a string').trim().min(1, 'the command is empty').max(4000, 'the command is longer than 4,000 characters'),
    exit: z.number('"exit" must be a number').int('"exit" must be a whole number').min(0).max(255),
  }),
  called: z.strictObject({ called: z.string('a tool name must be a string').trim().min(1, 'the tool name is empty') }),
  answer: z.strictObject({ answer: Regex }),
} as const;

type KindSchemas = typeof KIND_SCHEMAS;
export type CheckKind = keyof KindSchemas;
/** One declared postcondition. */
export type StepCheck = { [K in CheckKind]: z.infer<KindSchemas[K]> }[CheckKind];

const KINDS = Object.keys(KIND_SCHEMAS) as CheckKind[];

/** The kind of a check (its leading key). */
export function checkKind(check: StepCheck): CheckKind {
  return KINDS.find((kind) => kind in check)!;
}

/** One check, told apart by its leading key so an error names what is wrong with that kind. */
export const StepCheckSchema = z.unknown().transform((value, ctx): StepCheck => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    ctx.addIssue({ code: 'custom', message: `a check must be an object with one of the keys ${CHECK_KINDS}` });
    return z.NEVER;
  }
  const kinds = KINDS.filter((kind) => kind in value);
  if (kinds.length !== 1) {
    const keys = Object.keys(value).map((k) => JSON.stringify(k));
    ctx.addIssue({
      code: 'custom',
      message:
        kinds.length === 0
          ? `unknown check ${keys.length ? `(keys ${keys.join(', ')})` : '{}'}: a check is one of ${CHECK_KINDS}`
          : `a check has exactly one kind, this one has ${kinds.join(' and ')}`,
    });
    return z.NEVER;
  }
  const parsed = KIND_SCHEMAS[kinds[0]].safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const message =
        issue.code === 'unrecognized_keys'
          ? `unknown key ${issue.keys.map((k) => JSON.stringify(k)).join(', ')} in a "${kinds[0]}" check`
          : issue.code === 'invalid_union'
            ? `a "contains" check needs exactly one of "text" (a literal) or "pattern" (a regular expression)`
            : `${issue.path.length ? `"${issue.path.join('.')}": ` : ''}${issue.message}`;
      ctx.addIssue({ code: 'custom', message: `${message}` });
    }
    return z.NEVER;
  }
  return parsed.data;
});

/** A step's `expects`: a list of checks (an empty list declares a step that needs no evidence). */
export const StepExpectsSchema = z.array(StepCheckSchema, '"expects" must be a list of checks');

/** A check in one line, as the CLI, the prompts and the verdicts say it. */
export function describeCheck(check: StepCheck): string {
  if ('changed' in check) return `changed ${check.changed}`;
  if ('exists' in check) return `exists ${check.exists}`;
  if ('absent' in check) return `absent ${check.absent}`;
  if ('contains' in check) return 'text' in check ? `${check.contains} contains ${JSON.stringify(check.text)}` : `${check.contains} matches /${check.pattern}/`;
  if ('command' in check) return `\`${check.command}\` exits ${check.exit}`;
  if ('called' in check) return `called ${check.called}`;
  return `answer matches /${check.answer}/`;
}
