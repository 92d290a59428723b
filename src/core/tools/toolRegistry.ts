import { z } from 'zod';
import type { ToolSpec } from '../llm/llmTypes';
import type { NameResolution } from '../plan/planTypes';
import { normalizeToolName } from './nameNormalizer';
import { toStrictSchema } from './strictSchema';
import type { ToolDefinition } from './toolTypes';

// The set of tools one run may call, and the one place a model's tool name is turned into a real
// tool (docs/design.md, “Tool name resolution”: exact → alias → normalized). Ambiguity is refused when the registry is
// built, never discovered mid-run: duplicate names, two names with the same normalize key, and
// aliases hidden behind a real tool name are all errors naming the culprits.

/** Built-in aliases for common name drift. Entries whose target is not registered are inert. */
export const DEFAULT_TOOL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  'memory.search': 'memory_search',
  'memory.store': 'memory_store',
  'memory.forget': 'memory_forget',
  read: 'read_file',
  write: 'write_file',
  edit: 'edit_file',
  ls: 'list_directory',
  list_dir: 'list_directory',
  mkdir: 'create_directory',
  glob: 'find_files',
  grep: 'search_text',
  bash: 'run_command',
  shell: 'run_command',
});

/** OpenAI-compatible endpoints accept only these function names. */
const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export class ToolNameConflictError extends Error {
  constructor(readonly conflicts: string[]) {
    super(`Tool registry refused: ${conflicts.join('; ')}`);
    this.name = 'ToolNameConflictError';
  }
}

export interface ResolvedToolName {
  requestedName: string;
  /** The canonical tool name when resolved, else the requested name. */
  name: string;
  resolution: Exclude<NameResolution, 'repaired'>;
  /** Set when the name resolves to a registered tool that is not visible in this registry view. */
  hidden?: boolean;
  /** The alias key or normalize key that matched (audit). */
  via?: string;
}

export interface ToolRegistryOptions {
  /** `cortex.tools.aliases`; merged over DEFAULT_TOOL_ALIASES. */
  aliases?: Record<string, string>;
  /** `cortex.tools.normalizeFallback` (default true). */
  normalizeFallback?: boolean;
}

export interface ToolRegistry {
  /** Resolves a model's tool name against the visible tools. */
  resolve(requestedName: string): ResolvedToolName;
  /** A visible tool by canonical name. */
  get(name: string): ToolDefinition | undefined;
  /** Visible tool names, in registration order. */
  names(): string[];
  tools(): ToolDefinition[];
  /**
   * Function specs for the visible tools, with strict JSON Schemas (docs/design.md, “Tool name resolution”). Made once
   * per view and frozen: every request of a step sends the same list, so its JSON and its token
   * count are made once.
   */
  specs(): readonly ToolSpec[];
  /** The strict JSON Schema of one visible tool. */
  parameters(name: string): Record<string, unknown> | undefined;
  /** Non-fatal notes from registration (aliases whose target is not registered). */
  readonly warnings: readonly string[];
  /** A view with only the tools `visible` accepts (same aliases and normalize index). */
  restrict(visible: (tool: ToolDefinition) => boolean): ToolRegistry;
}

/** JSON Schema for the model: input shape (optional/defaulted fields not required), no `$schema`. */
export function toolParametersSchema(tool: ToolDefinition): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = tool.parameters ?? z.toJSONSchema(tool.schema, { io: 'input' });
  return toStrictSchema(schema);
}

interface Index {
  byName: Map<string, ToolDefinition>;
  aliases: Map<string, string>;
  byKey: Map<string, string>;
  normalizeFallback: boolean;
  parameters: Map<string, Record<string, unknown>>;
  warnings: string[];
}

function buildIndex(tools: ToolDefinition[], options: ToolRegistryOptions): Index {
  const conflicts: string[] = [];
  const byName = new Map<string, ToolDefinition>();
  const counts = new Map<string, number>();
  for (const tool of tools) {
    if (!TOOL_NAME_PATTERN.test(tool.name)) conflicts.push(`invalid tool name ${JSON.stringify(tool.name)} (use 1-64 letters, digits, '_' or '-')`);
    counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
    if (!byName.has(tool.name)) byName.set(tool.name, tool);
  }
  for (const [name, count] of counts) if (count > 1) conflicts.push(`duplicate tool name '${name}' (registered ${count} times)`);

  const normalizeFallback = options.normalizeFallback ?? true;
  const byKey = new Map<string, string>();
  if (normalizeFallback) {
    const keyOwners = new Map<string, string[]>();
    for (const name of byName.keys()) {
      const key = normalizeToolName(name);
      keyOwners.set(key, [...(keyOwners.get(key) ?? []), name]);
    }
    for (const [key, owners] of keyOwners) {
      if (owners.length > 1)
        conflicts.push(
          `tool names ${owners.map((o) => `'${o}'`).join(' and ')} all normalize to '${key}' (rename one, or set cortex.tools.normalizeFallback to false)`,
        );
      else byKey.set(key, owners[0]);
    }
  }

  const warnings: string[] = [];
  const aliases = new Map<string, string>();
  for (const [key, target] of Object.entries(DEFAULT_TOOL_ALIASES)) {
    if (!byName.has(key) && byName.has(target)) aliases.set(key, target); // a real tool wins over a default alias
  }
  for (const [key, target] of Object.entries(options.aliases ?? {})) {
    if (key === target) continue; // self-alias: meaningless, ignored
    if (byName.has(key)) {
      conflicts.push(`alias '${key}' → '${target}' is shadowed by the tool '${key}' (remove the alias from cortex.tools.aliases)`);
      continue;
    }
    if (!byName.has(target)) warnings.push(`alias '${key}' → '${target}' points to no registered tool and is ignored`);
    else aliases.set(key, target);
  }

  const parameters = new Map<string, Record<string, unknown>>();
  for (const tool of byName.values()) {
    try {
      parameters.set(tool.name, toolParametersSchema(tool));
    } catch (error) {
      conflicts.push(`tool '${tool.name}' has a schema that cannot be expressed as JSON Schema: ${(error as Error).message}`);
    }
  }
  if (conflicts.length) throw new ToolNameConflictError(conflicts);
  return { byName, aliases, byKey, normalizeFallback, parameters, warnings };
}

function makeView(index: Index, visible: (tool: ToolDefinition) => boolean): ToolRegistry {
  const visibleTools = [...index.byName.values()].filter(visible);
  const visibleNames = new Set(visibleTools.map((tool) => tool.name));
  let specs: readonly ToolSpec[] | undefined;
  const found = (requestedName: string, name: string, resolution: ResolvedToolName['resolution'], via?: string): ResolvedToolName =>
    visibleNames.has(name)
      ? { requestedName, name, resolution, ...(via !== undefined ? { via } : {}) }
      : { requestedName, name: requestedName, resolution: 'unknown', hidden: true, ...(via !== undefined ? { via } : {}) };

  return {
    warnings: index.warnings,
    resolve(requestedName) {
      if (index.byName.has(requestedName)) return found(requestedName, requestedName, 'exact');
      const aliased = index.aliases.get(requestedName);
      if (aliased !== undefined) return found(requestedName, aliased, 'alias', requestedName);
      const key = normalizeToolName(requestedName);
      if (key === '') return { requestedName, name: requestedName, resolution: 'missing' };
      if (index.normalizeFallback) {
        const canonical = index.byKey.get(key);
        if (canonical !== undefined) return found(requestedName, canonical, 'normalized', key);
      }
      return { requestedName, name: requestedName, resolution: 'unknown' };
    },
    get: (name) => (visibleNames.has(name) ? index.byName.get(name) : undefined),
    names: () => visibleTools.map((tool) => tool.name),
    tools: () => [...visibleTools],
    specs: () =>
      (specs ??= deepFreeze(
        visibleTools.map((tool) => ({
          type: 'function' as const,
          function: { name: tool.name, description: tool.description, parameters: structuredClone(index.parameters.get(tool.name)!) },
        })),
      )),
    parameters: (name) => (visibleNames.has(name) ? structuredClone(index.parameters.get(name)) : undefined),
    restrict: (predicate) => makeView(index, (tool) => visible(tool) && predicate(tool)),
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/** Builds a registry, or throws ToolNameConflictError listing every conflict found. */
export function createToolRegistry(tools: ToolDefinition[], options: ToolRegistryOptions = {}): ToolRegistry {
  return makeView(buildIndex(tools, options), () => true);
}

/** The view for untrusted workspaces: only read-only tools are visible (and callable). */
export function readOnlyRegistry(registry: ToolRegistry): ToolRegistry {
  return registry.restrict((tool) => tool.readOnly);
}
