import type { FlatConfig } from '../config/configSchema';
import type { AccumulatedToolCall, ArgumentParseError, ArgumentValue, LlmClient } from '../llm/llmTypes';
import type { NameResolution } from '../plan/planTypes';
import type { Logger } from '../ports';
import { mcpOriginOf } from '../policy/toolOrigin';
import { isRecord } from '../text/isRecord';
import { type ArgumentRepairAudit, type ArgumentRepairCandidate, repairToolArguments } from './argumentRepair';
import { validateToolArguments } from './argumentValidator';
import { buildInvalidPayload } from './invalidPayload';
import { type NameRepairAudit, type NameRepairCandidate, repairToolNames } from './nameRepair';
import { executeTool, type ToolRunResult } from './toolExecutor';
import type { ToolRegistry } from './toolRegistry';
import type { ToolContext, ToolDefinition } from './toolTypes';

export { TOOL_ERROR_GUIDANCE } from './invalidPayload';

// The one path every tool call takes, whoever asks, so no call is checked differently from another
// (docs/design.md, “Preflight validation and the invalid result”): name resolution → name repair → argument validation (of the arguments the
// accumulator decoded once, `call.decoded`) → argument repair → disposition. `prepareToolCalls` decides, for a whole response, what may run;
// `executePreparedCall` runs one prepared call. Policy (allow/deny/confirm) sits between the two
// in the executor. The pipeline never runs anything that did not pass every stage.

export type PipelineConfig = Pick<
  FlatConfig,
  | 'cortex.repair.toolNameAttempts'
  | 'cortex.repair.toolCallAttempts'
  | 'cortex.repair.maxVisibleToolNames'
  | 'cortex.repair.maxCandidates'
  | 'cortex.repair.maxSchemaBytes'
  | 'cortex.repair.validateSchema'
>;

interface PreparedBase {
  /** The call exactly as the model sent it (audit). */
  call: AccumulatedToolCall;
  requestedName: string;
  /** The tool that will run (or the requested name when none resolved). */
  name: string;
  nameResolution: NameResolution;
  /** Arguments as a JSON string for history and approval: the validated args, else as received. */
  argumentsJson: string;
  audit: Record<string, unknown>;
}

/** May run, after the policy (docs/design.md, “Policy”). */
export interface RunnableCall extends PreparedBase {
  disposition: 'run';
  tool: ToolDefinition;
  args: Record<string, unknown>;
  /** False when `cortex.repair.validateSchema` is off: the schema is then checked right before the tool runs. */
  validated: boolean;
}

/** Never runs: its tool message is `invalidPayload`, recorded with status error. */
export interface InvalidCall extends PreparedBase {
  disposition: 'invalid';
  /** What is wrong, for the trace. */
  reason: string;
  invalidPayload: string;
}

/** Never runs and is not replayed: its arguments never decoded, so it stays pending. */
export interface UnparseableCall extends PreparedBase {
  disposition: 'unparseable';
  parseError: ArgumentParseError;
  /** Why, with the remedy for cut-off arguments, for the trace. */
  reason: string;
}

export type PreparedCall = RunnableCall | InvalidCall | UnparseableCall;
export type Disposition = PreparedCall['disposition'];

export interface PipelineAudit {
  /** Names that did not resolve exactly (at most 20, docs/design.md, “Tool name resolution”). */
  resolutions: Array<{ tool_call_id: string; requestedName: string; name: string; nameResolution: NameResolution }>;
  nameRepair?: NameRepairAudit;
  argumentRepair?: ArgumentRepairAudit;
  /** Calls whose arguments were cut off: the remedy is a smaller step, not a repair. */
  truncated?: Array<{ tool_call_id: string; name: string }>;
}

export interface PrepareDeps {
  /** The tools visible to the model this turn. */
  registry: ToolRegistry;
  config: PipelineConfig;
  llm: LlmClient;
  signal: AbortSignal;
  stepId?: string;
  logger?: Logger;
}

const MAX_RESOLUTION_AUDITS = 20;
const MAX_NAMES_IN_ERROR = 60;

interface WorkingCall {
  call: AccumulatedToolCall;
  requestedName: string;
  name: string;
  resolution: NameResolution;
  hidden: boolean;
  /** The decoded arguments; a repair replaces them. */
  parsed: ArgumentValue;
  args?: Record<string, unknown>;
  /** True once `args` passed the tool's schema. */
  validated: boolean;
  validationError?: string;
  audit: Record<string, unknown>;
}

function availableTools(registry: ToolRegistry): string {
  const names = registry.names();
  const shown = names.slice(0, MAX_NAMES_IN_ERROR).join(', ');
  return names.length > MAX_NAMES_IN_ERROR ? `${shown}, … (${names.length - MAX_NAMES_IN_ERROR} more)` : shown || '(none)';
}

function unknownToolError(work: WorkingCall, registry: ToolRegistry): string {
  if (work.resolution === 'missing') return `The tool call has no tool name. Call one of the available tools: ${availableTools(registry)}`;
  if (work.hidden) return `Tool '${work.requestedName}' is not available here. Available tools: ${availableTools(registry)}`;
  return `Unknown tool '${work.requestedName}'. Available tools: ${availableTools(registry)}`;
}

/** A tool's own check (MCP tools: their JSON Schema), else its zod schema. */
function validateFor(tool: ToolDefinition, value: unknown) {
  return tool.validate ? tool.validate(value) : validateToolArguments(tool.schema, value);
}

const NOT_AN_OBJECT = 'Invalid arguments: the arguments must be a JSON object';

/** The schema check of first arguments and of repaired ones alike: the one place arguments are validated. */
function checkArguments(tool: ToolDefinition, value: unknown): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  const result = validateFor(tool, value);
  if (!result.ok) return { ok: false, error: result.error };
  return isRecord(result.value) ? { ok: true, value: result.value } : { ok: false, error: NOT_AN_OBJECT };
}

/** A call that never runs; its payload is built here and nowhere else. */
function invalidCall(base: Omit<PreparedBase, 'argumentsJson'>, error: string, received: unknown): InvalidCall {
  return {
    ...base,
    argumentsJson: JSON.stringify(received),
    disposition: 'invalid',
    reason: error,
    invalidPayload: buildInvalidPayload(base.requestedName, error, received),
  };
}

/**
 * Prepares every call of one model response. Runs at most one name-repair and one argument-repair
 * round (each up to its configured attempts, each one batched LLM call per attempt). The result
 * has one PreparedCall per input call, in order.
 */
export async function prepareToolCalls(calls: AccumulatedToolCall[], deps: PrepareDeps): Promise<{ calls: PreparedCall[]; audit: PipelineAudit }> {
  const { registry, config, llm, signal, stepId, logger } = deps;
  const validateSchema = config['cortex.repair.validateSchema'];
  const audit: PipelineAudit = { resolutions: [] };

  // 1. Name resolution: exact → alias → normalized.
  const work: WorkingCall[] = calls.map((call) => {
    const resolved = registry.resolve(call.name);
    const callAudit: Record<string, unknown> = { nameResolution: resolved.resolution };
    if (resolved.via !== undefined) callAudit.resolvedVia = resolved.via;
    if (resolved.hidden) callAudit.hiddenTool = true;
    return {
      call,
      requestedName: call.name,
      name: resolved.name,
      resolution: resolved.resolution,
      hidden: resolved.hidden ?? false,
      parsed: call.decoded,
      validated: false,
      audit: callAudit,
    };
  });

  // 2. Name repair for names that resolve to no visible tool.
  const nameCandidates: NameRepairCandidate[] = work
    .filter((w) => w.resolution === 'unknown' || w.resolution === 'missing')
    .map((w) => ({
      tool_call_id: w.call.id,
      name: w.requestedName,
      reason: w.resolution === 'missing' ? 'missing_name' : w.hidden ? 'tool_not_in_profile' : 'tool_not_found',
      arguments: w.call.rawArguments,
    }));
  if (nameCandidates.length && config['cortex.repair.toolNameAttempts'] > 0) {
    const { repaired, audit: repairAudit } = await repairToolNames(nameCandidates, registry.names(), {
      llm,
      signal,
      stepId,
      attempts: config['cortex.repair.toolNameAttempts'],
      maxVisibleToolNames: config['cortex.repair.maxVisibleToolNames'],
      maxCandidates: config['cortex.repair.maxCandidates'],
    });
    audit.nameRepair = repairAudit;
    for (const w of work) {
      const to = repaired.get(w.call.id);
      if (to === undefined) continue;
      w.audit.nameRepair = { from: w.requestedName, to, previousResolution: w.resolution };
      w.name = to;
      w.resolution = 'repaired';
      w.audit.nameResolution = 'repaired';
    }
    logger?.debug('tool-name repair', { stepId, repaired: repairAudit.repaired.length, failed: repairAudit.failed.length });
  }
  for (const w of work) {
    if (w.resolution !== 'exact' && audit.resolutions.length < MAX_RESOLUTION_AUDITS) {
      audit.resolutions.push({ tool_call_id: w.call.id, requestedName: w.requestedName, name: w.name, nameResolution: w.resolution });
    }
  }

  // 3. Validation of the decoded arguments, for calls to a visible tool. With validateSchema off
  //    they only have to be an object here; the schema is checked once, right before the tool runs.
  for (const w of work) {
    if (w.parsed.ok && w.parsed.doubleEncoded) w.audit.doubleEncoded = true;
    if (!w.parsed.ok) {
      w.audit.parseError = w.parsed.error;
      w.audit.parseMessage = w.parsed.message;
      continue;
    }
    const tool = registry.get(w.name);
    if (!tool) continue;
    const value = w.parsed.value;
    const checked = validateSchema
      ? checkArguments(tool, value)
      : isRecord(value)
        ? { ok: true as const, value }
        : { ok: false as const, error: NOT_AN_OBJECT };
    if (checked.ok) {
      w.args = checked.value;
      w.validated = validateSchema;
    } else {
      w.validationError = w.audit.validationError = checked.error;
    }
  }

  // 4. Argument repair: parse errors (not truncation) and schema-invalid calls to visible tools.
  const argumentCandidates: ArgumentRepairCandidate[] = [];
  for (const w of work) {
    const needsRepair = (!w.parsed.ok && w.parsed.error !== 'truncated') || (w.parsed.ok && w.validationError);
    // A copy of the schema is made only for a call that needs repair.
    const parameters = needsRepair ? registry.parameters(w.name) : undefined;
    if (!parameters) continue;
    if (!w.parsed.ok && w.parsed.error !== 'truncated') {
      argumentCandidates.push({
        tool_call_id: w.call.id,
        tool: w.name,
        problem: w.parsed.error,
        error: w.parsed.message,
        arguments: w.call.rawArguments,
        schema: parameters,
      });
    } else if (w.parsed.ok && w.validationError) {
      argumentCandidates.push({
        tool_call_id: w.call.id,
        tool: w.name,
        problem: 'schema_invalid',
        error: w.validationError,
        arguments: JSON.stringify(w.parsed.value),
        schema: parameters,
      });
    }
  }
  if (argumentCandidates.length && config['cortex.repair.toolCallAttempts'] > 0) {
    const byId = new Map(work.map((w) => [w.call.id, w]));
    const { repaired, audit: repairAudit } = await repairToolArguments(argumentCandidates, {
      llm,
      signal,
      stepId,
      attempts: config['cortex.repair.toolCallAttempts'],
      maxCandidates: config['cortex.repair.maxCandidates'],
      maxSchemaBytes: config['cortex.repair.maxSchemaBytes'],
      validate: (id, value) => {
        const tool = registry.get(byId.get(id)?.name ?? '');
        // Repaired arguments are always checked against the schema, whatever validateSchema says.
        return tool ? checkArguments(tool, value) : { ok: false, error: 'unknown tool' };
      },
    });
    audit.argumentRepair = repairAudit;
    for (const w of work) {
      const args = repaired.get(w.call.id);
      if (args === undefined) continue;
      w.audit.argumentRepair = { repaired: true, before: w.parsed.ok ? { validationError: w.validationError } : { parseError: w.parsed.error } };
      w.args = args;
      w.validated = true;
      w.parsed = { ok: true, value: args, doubleEncoded: false };
      w.validationError = undefined;
    }
    for (const failed of repairAudit.failed) {
      const w = byId.get(failed.tool_call_id);
      if (w) w.audit.argumentRepair = { repaired: false, reason: failed.reason };
    }
    logger?.debug('tool-call repair', { stepId, repaired: repairAudit.repaired.length, failed: repairAudit.failed.length });
  }

  // 5. Disposition: run, invalid (structured payload), or unparseable (stays pending).
  const prepared = work.map((w): PreparedCall => {
    const tool = registry.get(w.name);
    const origin = tool && mcpOriginOf(tool);
    if (origin) w.audit.mcp = { server: origin.server, tool: origin.tool, ...(origin.annotations ? { annotations: origin.annotations } : {}) };
    const base = { call: w.call, requestedName: w.requestedName, name: w.name, nameResolution: w.resolution, audit: w.audit };
    if (!w.parsed.ok) {
      const remedy = w.parsed.error === 'truncated' ? '; the output was cut off, so redo this in a smaller step' : '';
      if (w.parsed.error === 'truncated') (audit.truncated ??= []).push({ tool_call_id: w.call.id, name: w.name });
      return {
        ...base,
        argumentsJson: w.call.rawArguments,
        disposition: 'unparseable',
        parseError: w.parsed.error,
        reason: `${w.parsed.error}: ${w.parsed.message}${remedy}`,
      };
    }
    const received = w.parsed.value;
    if (!tool) return invalidCall(base, unknownToolError(w, registry), received);
    if (w.validationError !== undefined || w.args === undefined) return invalidCall(base, w.validationError ?? 'Invalid arguments', received);
    return { ...base, tool, args: w.args, validated: w.validated, argumentsJson: JSON.stringify(w.args), disposition: 'run' };
  });
  return { calls: prepared, audit };
}

/**
 * Runs one prepared call. 'invalid' calls are not run: their payload comes back as a failed
 * result. Arguments not validated yet (validateSchema off) are checked against the tool's schema
 * here, so a tool is never handed arguments it cannot take. Throws for 'unparseable' calls, which
 * must never run.
 */
export async function executePreparedCall(prepared: PreparedCall, context: ToolContext, maxOutputBytes: number): Promise<ToolRunResult> {
  if (prepared.disposition === 'unparseable') throw new Error(`Tool call ${prepared.call.id} is unparseable (${prepared.parseError}) and must not run`);
  if (prepared.disposition === 'invalid') return { ok: false, output: prepared.invalidPayload, durationMs: 0 };
  if (prepared.validated) return executeTool(prepared.tool, prepared.args, context, maxOutputBytes);
  const checked = checkArguments(prepared.tool, prepared.args);
  if (!checked.ok) return { ok: false, output: buildInvalidPayload(prepared.requestedName, checked.error, prepared.args), durationMs: 0 };
  return executeTool(prepared.tool, checked.value, context, maxOutputBytes);
}
