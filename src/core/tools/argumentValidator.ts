import { z } from 'zod';

// Checks parsed arguments against a tool's zod schema (the same schema the model was shown as JSON
// Schema) and explains each problem by field name, so the model can fix exactly what is wrong
// (docs/design.md, “Preflight validation and the invalid result”: missing required fields, wrong types, unknown keys of strict objects).

export type ValidationIssueKind = 'missing' | 'type' | 'unknown' | 'invalid';

export interface ValidationIssue {
  kind: ValidationIssueKind;
  /** Dotted path of the field ('' for the arguments object itself). */
  path: string;
  message: string;
}

export type ValidationResult<T = Record<string, unknown>> = { ok: true; value: T } | { ok: false; error: string; issues: ValidationIssue[] };

/** JSON type name of a value, as a model would say it. */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function formatPath(path: PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let current = root;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[part as string];
  }
  return current;
}

function hasKey(root: unknown, path: PropertyKey[]): boolean {
  if (path.length === 0) return root !== undefined;
  const parent = valueAt(root, path.slice(0, -1));
  return parent !== null && typeof parent === 'object' && Object.prototype.hasOwnProperty.call(parent, path[path.length - 1]);
}

function toIssues(zodIssues: z.core.$ZodIssue[], input: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const issue of zodIssues) {
    const path = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        issues.push({ kind: 'unknown', path: formatPath([...issue.path, key]), message: `unknown field '${formatPath([...issue.path, key])}'` });
    } else if (issue.code === 'invalid_type' && !hasKey(input, issue.path)) {
      issues.push(
        path === ''
          ? { kind: 'type', path, message: `the arguments must be a JSON object, got nothing` }
          : { kind: 'missing', path, message: `missing required field '${path}'` },
      );
    } else if (issue.code === 'invalid_type') {
      const got = jsonTypeOf(valueAt(input, issue.path));
      issues.push(
        path === ''
          ? { kind: 'type', path, message: `the arguments must be a JSON ${issue.expected}, got ${got}` }
          : { kind: 'type', path, message: `field '${path}' must be ${issue.expected}, got ${got}` },
      );
    } else {
      issues.push({ kind: 'invalid', path, message: path === '' ? issue.message : `field '${path}': ${issue.message}` });
    }
  }
  return issues;
}

/** Lists the issues as one sentence, grouping missing and unknown fields by name. */
export function describeIssues(issues: ValidationIssue[], allowedKeys?: string[]): string {
  const parts: string[] = [];
  const missing = issues.filter((i) => i.kind === 'missing').map((i) => i.path);
  const unknown = issues.filter((i) => i.kind === 'unknown').map((i) => i.path);
  if (missing.length) parts.push(`missing required field(s): ${missing.join(', ')}`);
  for (const issue of issues) if (issue.kind === 'type' || issue.kind === 'invalid') parts.push(issue.message);
  if (unknown.length) {
    const allowed = allowedKeys?.length ? ` (allowed: ${allowedKeys.join(', ')})` : '';
    parts.push(`unknown field(s): ${unknown.join(', ')}${allowed}`);
  }
  return `Invalid arguments: ${parts.join('; ')}`;
}

/** Top-level field names of an object schema, for "allowed:" hints. */
export function schemaKeys(schema: z.ZodType): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** Validates `value` with `schema`; on failure the error names every offending field. */
export function validateToolArguments<S extends z.ZodType>(schema: S, value: unknown): ValidationResult<z.infer<S>> {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  const issues = toIssues(result.error.issues, value);
  return { ok: false, error: describeIssues(issues, schemaKeys(schema)), issues };
}
