import { z } from 'zod';

// The `step_audit` kinds the features record in a step's audit trail, as one zod union shared by
// the core (which writes them through `stepAuditEvent`, so a producer that drifts from the schema
// does not compile) and the webview (which reads them through `readStepAudit`, so it sees typed
// data or nothing, never a guess). Plain data defined in the plan: the plan imports no feature
// (docs/design.md, "The core's inner layers"). Objects are loose: an audit keeps every field its
// producer wrote (the details pane shows them all), and only the fields named here are typed.

const Loose = z.looseObject({});

/** `context_cost` (context budget): one request's prompt fitted to the budget. */
const ContextCostData = z.looseObject({
  purpose: z.string().optional(),
  budget: z.number().optional(),
  tokensBefore: z.number().optional(),
  tokensAfter: z.number().optional(),
  actions: z.array(z.object({ kind: z.string(), count: z.number(), tokensSaved: z.number(), failed: z.string().optional() })).optional(),
  exhausted: z.boolean().optional(),
  afterOverflow: z.boolean().optional(),
});

/** `memory_injected` (memory): the workspace memories added to a step's first turn. */
const MemoryInjectedData = z.looseObject({
  count: z.number(),
  tokens: z.number(),
  memories: z.array(z.looseObject({ id: z.string(), text: z.string(), tags: z.array(z.string()) })),
});

/** `mcp_result` (MCP): the raw result of one MCP call, for the trace and the details pane. */
const McpResultData = z.looseObject({ callId: z.string(), raw: z.string().optional() });

/** `carried_over` (retrying a step): a completed step of a finished run, carried into the run that retries one of its steps; it did not run again. */
const CarriedOverData = z.looseObject({ fromRunId: z.string(), fromStatus: z.string() });
/**
 * `drift` (plan approval): a call outside its step's approved scope, which asked a person, or a
 * change a command made outside the step's write globs (docs/design.md, “Step scopes and plan approval”).
 */
const DriftData = z.looseObject({
  callId: z.string(),
  what: z.string(),
  scope: z.looseObject({ write: z.array(z.string()).optional(), commands: z.array(z.string()).optional() }),
  /** For changes a command made outside the write globs: those paths. */
  paths: z.array(z.string()).optional(),
});

/** Each kind with the data its producer records; kinds the panel only lists as JSON stay open records. */
const AUDIT_DATA = {
  context_cost: ContextCostData,
  memory_injected: MemoryInjectedData,
  mcp_result: McpResultData,
  carried_over: CarriedOverData,
  drift: DriftData,
  mcp_tools: Loose,
  text_tool_calls: Loose,
  tool_calls_per_turn: Loose,
  tool_pipeline: Loose,
  tool_batch: Loose,
} as const;

export type StepAuditKind = keyof typeof AUDIT_DATA;
type AuditData = typeof AUDIT_DATA;

/** What a producer writes: a kind and its data. */
export type StepAuditInput = { [K in StepAuditKind]: { kind: K; data: z.input<AuditData[K]> } }[StepAuditKind];

/** The `step_audit` event of `audit` for `stepId` (what `log.append` takes). */
export function stepAuditEvent(
  stepId: string,
  audit: StepAuditInput,
): { type: 'step_audit'; stepId: string; kind: StepAuditKind; data: Record<string, unknown> } {
  return { type: 'step_audit', stepId, kind: audit.kind, data: audit.data };
}

// `seq` is the audit's event; optional so an audit built by hand (a test, an older view) still reads.
const Stored = { seq: z.number().optional() };

/** An audit as a step keeps it (the reducer spreads the data next to `kind` and `seq`), by kind. */
export const StepAuditSchema = z.discriminatedUnion('kind', [
  AUDIT_DATA.context_cost.extend({ kind: z.literal('context_cost'), ...Stored }),
  AUDIT_DATA.memory_injected.extend({ kind: z.literal('memory_injected'), ...Stored }),
  AUDIT_DATA.mcp_result.extend({ kind: z.literal('mcp_result'), ...Stored }),
  AUDIT_DATA.carried_over.extend({ kind: z.literal('carried_over'), ...Stored }),
  AUDIT_DATA.drift.extend({ kind: z.literal('drift'), ...Stored }),
  AUDIT_DATA.mcp_tools.extend({ kind: z.literal('mcp_tools'), ...Stored }),
  AUDIT_DATA.text_tool_calls.extend({ kind: z.literal('text_tool_calls'), ...Stored }),
  AUDIT_DATA.tool_calls_per_turn.extend({ kind: z.literal('tool_calls_per_turn'), ...Stored }),
  AUDIT_DATA.tool_pipeline.extend({ kind: z.literal('tool_pipeline'), ...Stored }),
  AUDIT_DATA.tool_batch.extend({ kind: z.literal('tool_batch'), ...Stored }),
]);
export type StepAudit = z.infer<typeof StepAuditSchema>;

/** `audit` typed by its kind, or undefined when it is another kind (an LLM retry, a restart) or malformed. */
export function readStepAudit(audit: Readonly<Record<string, unknown>>): StepAudit | undefined {
  const parsed = StepAuditSchema.safeParse(audit);
  return parsed.success ? parsed.data : undefined;
}

/** The audits of `kind` among a step's audits, typed. */
export function auditsOfKind<K extends StepAuditKind>(
  audits: ReadonlyArray<Readonly<Record<string, unknown>>>,
  kind: K,
): Array<Extract<StepAudit, { kind: K }>> {
  return audits.map(readStepAudit).filter((audit): audit is Extract<StepAudit, { kind: K }> => audit?.kind === kind);
}
