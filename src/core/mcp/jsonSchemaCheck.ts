import { describeIssues, jsonTypeOf, type ValidationIssue, type ValidationResult } from '../tools/argumentValidator';
import { isRecord } from '../text/isRecord';

// Checks a tool call's arguments against an MCP tool's JSON Schema (its `inputSchema`, made strict
// as the model saw it) and names every problem by field in the same words as the native tools'
// validation (docs/design.md, “Preflight validation and the invalid result”). It covers what MCP servers use: type (and lists of types),
// properties, required, additionalProperties, patternProperties, items / prefixItems, enum, const,
// string, number and array bounds, pattern, anyOf / oneOf / allOf, and local `$ref`s. Keywords it
// does not know are not checked: the server validates its own input again.

type Json = unknown;
type Schema = Record<string, Json>;

const MAX_DEPTH = 64;

function formatPath(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out === '' ? part : `.${part}`;
  return out;
}

function matchesType(type: string, value: Json): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isRecord(value);
    default:
      return true; // an unknown type name checks nothing
  }
}

function deepEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
  }
  return false;
}

function resolveRef(root: Schema, ref: string): Json {
  if (!ref.startsWith('#')) return undefined;
  let node: Json = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isRecord(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, Json>)[part];
  }
  return node;
}

function typesOf(schema: Json): string[] | undefined {
  if (!isRecord(schema)) return undefined;
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === 'string');
  return undefined;
}

class Checker {
  constructor(private readonly root: Schema) {}

  check(schema: Json, value: Json, path: Array<string | number>, issues: ValidationIssue[], depth = 0): void {
    if (depth > MAX_DEPTH || schema === true || schema === undefined) return;
    const where = formatPath(path);
    const field = where === '' ? 'the arguments' : `field '${where}'`;
    if (schema === false) {
      issues.push({ kind: 'invalid', path: where, message: `${field} is not allowed` });
      return;
    }
    if (!isRecord(schema)) return;
    if (typeof schema.$ref === 'string') {
      this.check(resolveRef(this.root, schema.$ref), value, path, issues, depth + 1);
    }

    const types = typesOf(schema);
    if (types && types.length > 0 && !types.some((type) => matchesType(type, value))) {
      const expected = types.join(' or ');
      issues.push({
        kind: 'type',
        path: where,
        message: where === '' ? `the arguments must be a JSON ${expected}, got ${jsonTypeOf(value)}` : `${field} must be ${expected}, got ${jsonTypeOf(value)}`,
      });
      return;
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((option) => deepEqual(option, value))) {
      issues.push({ kind: 'invalid', path: where, message: `${field} must be one of: ${schema.enum.map((o) => JSON.stringify(o)).join(', ')}` });
    }
    if ('const' in schema && !deepEqual(schema.const, value)) {
      issues.push({ kind: 'invalid', path: where, message: `${field} must be ${JSON.stringify(schema.const)}` });
    }
    if (typeof value === 'string') this.checkString(schema, value, where, field, issues);
    if (typeof value === 'number') this.checkNumber(schema, value, where, field, issues);
    if (Array.isArray(value)) this.checkArray(schema, value, path, issues, depth);
    if (isRecord(value)) this.checkObject(schema, value, path, issues, depth);

    if (Array.isArray(schema.allOf)) for (const branch of schema.allOf) this.check(branch, value, path, issues, depth + 1);
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = schema[key];
      if (Array.isArray(branches) && branches.length > 0) this.checkAlternatives(branches, value, path, issues, depth);
    }
  }

  private checkString(schema: Schema, value: string, where: string, field: string, issues: ValidationIssue[]): void {
    const length = [...value].length;
    if (typeof schema.minLength === 'number' && length < schema.minLength)
      issues.push({ kind: 'invalid', path: where, message: `${field} must be at least ${schema.minLength} characters long` });
    if (typeof schema.maxLength === 'number' && length > schema.maxLength)
      issues.push({ kind: 'invalid', path: where, message: `${field} must be at most ${schema.maxLength} characters long` });
    if (typeof schema.pattern === 'string') {
      let pattern: RegExp | undefined;
      try {
        pattern = new RegExp(schema.pattern, 'u');
      } catch {
        pattern = undefined; // a pattern JavaScript cannot read checks nothing
      }
      if (pattern && !pattern.test(value)) issues.push({ kind: 'invalid', path: where, message: `${field} must match the pattern ${schema.pattern}` });
    }
  }

  private checkNumber(schema: Schema, value: number, where: string, field: string, issues: ValidationIssue[]): void {
    if (typeof schema.minimum === 'number' && value < schema.minimum)
      issues.push({ kind: 'invalid', path: where, message: `${field} must be at least ${schema.minimum}` });
    if (typeof schema.maximum === 'number' && value > schema.maximum)
      issues.push({ kind: 'invalid', path: where, message: `${field} must be at most ${schema.maximum}` });
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
      issues.push({ kind: 'invalid', path: where, message: `${field} must be greater than ${schema.exclusiveMinimum}` });
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum)
      issues.push({ kind: 'invalid', path: where, message: `${field} must be less than ${schema.exclusiveMaximum}` });
  }

  private checkArray(schema: Schema, value: Json[], path: Array<string | number>, issues: ValidationIssue[], depth: number): void {
    const where = formatPath(path);
    const field = where === '' ? 'the arguments' : `field '${where}'`;
    if (typeof schema.minItems === 'number' && value.length < schema.minItems)
      issues.push({ kind: 'invalid', path: where, message: `${field} must have at least ${schema.minItems} item(s)` });
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
      issues.push({ kind: 'invalid', path: where, message: `${field} must have at most ${schema.maxItems} item(s)` });
    const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : [];
    const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
    value.forEach((item, index) => this.check(index < tuple.length ? tuple[index] : rest, item, [...path, index], issues, depth + 1));
  }

  private checkObject(schema: Schema, value: Record<string, Json>, path: Array<string | number>, issues: ValidationIssue[], depth: number): void {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    if (Array.isArray(schema.required)) {
      for (const key of schema.required) {
        if (typeof key === 'string' && !Object.hasOwn(value, key)) {
          const where = formatPath([...path, key]);
          issues.push({ kind: 'missing', path: where, message: `missing required field '${where}'` });
        }
      }
    }
    const patterns: Array<[RegExp, Json]> = [];
    if (isRecord(schema.patternProperties)) {
      for (const [source, sub] of Object.entries(schema.patternProperties)) {
        try {
          patterns.push([new RegExp(source, 'u'), sub]);
        } catch {
          /* unreadable pattern: checks nothing */
        }
      }
    }
    for (const [key, item] of Object.entries(value)) {
      const childPath = [...path, key];
      const matched = patterns.filter(([pattern]) => pattern.test(key));
      if (Object.hasOwn(properties, key)) this.check(properties[key], item, childPath, issues, depth + 1);
      for (const [, sub] of matched) this.check(sub, item, childPath, issues, depth + 1);
      if (Object.hasOwn(properties, key) || matched.length > 0) continue;
      if (schema.additionalProperties === false)
        issues.push({ kind: 'unknown', path: formatPath(childPath), message: `unknown field '${formatPath(childPath)}'` });
      else if (isRecord(schema.additionalProperties)) this.check(schema.additionalProperties, item, childPath, issues, depth + 1);
    }
  }

  /** anyOf / oneOf: fine when one branch fits; otherwise the closest branch's problems are reported. */
  private checkAlternatives(branches: Json[], value: Json, path: Array<string | number>, issues: ValidationIssue[], depth: number): void {
    const where = formatPath(path);
    // A branch whose type fits is closer than one that fails on the type itself.
    const distance = (found: ValidationIssue[]) => (found.some((issue) => issue.kind === 'type' && issue.path === where) ? 1000 : 0) + found.length;
    let best: ValidationIssue[] | undefined;
    for (const branch of branches) {
      const found: ValidationIssue[] = [];
      this.check(branch, value, path, found, depth + 1);
      if (found.length === 0) return;
      if (!best || distance(found) < distance(best)) best = found;
    }
    const allTyped = branches.every((branch) => typesOf(branch) !== undefined);
    if (allTyped && best!.every((issue) => issue.kind === 'type' && issue.path === where)) {
      // Only the type is wrong: say every accepted type at once ("string or null").
      const expected = [...new Set(branches.flatMap((branch) => typesOf(branch)!))].join(' or ');
      issues.push({
        kind: 'type',
        path: where,
        message:
          where === ''
            ? `the arguments must be a JSON ${expected}, got ${jsonTypeOf(value)}`
            : `field '${where}' must be ${expected}, got ${jsonTypeOf(value)}`,
      });
      return;
    }
    issues.push(...best!);
  }
}

/** A validator for `schema`, with the same result shape as the native tools' zod validation. */
export function createJsonSchemaValidator(schema: Record<string, unknown>): (value: unknown) => ValidationResult {
  const checker = new Checker(schema);
  const allowedKeys = isRecord(schema.properties) ? Object.keys(schema.properties) : [];
  return (value) => {
    const issues: ValidationIssue[] = [];
    checker.check(schema, value, [], issues);
    if (issues.length === 0)
      return isRecord(value)
        ? { ok: true, value }
        : { ok: false, error: describeIssues([{ kind: 'type', path: '', message: `the arguments must be a JSON object, got ${jsonTypeOf(value)}` }]), issues };
    return { ok: false, error: describeIssues(issues, allowedKeys), issues };
  };
}
