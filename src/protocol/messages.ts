import { z } from 'zod';
import type { PendingApproval } from '../core/plan/approvalState';
import { ApprovalRefusalSchema, RunEventSchema } from '../core/plan/events';
import { ApprovalScopeSchema } from '../core/plan/rememberedApproval';

// The one postMessage protocol between the extension host and the webview, validated with
// `safeParse` on both sides. Handshake: the webview posts `webview/ready` (with its run's id,
// after a reload); the host answers with `host/reset` (all events of the run) and then streams
// `host/events` batches whose `fromSeq` must follow the webview's last seq, else it asks `webview/resync`.
// Approvals travel as events too: the panel reads what waits from its plan state. Each answer it
// sends carries a `replyTo` nonce, and the host replies once with `host/approvalAnswer`.

export const MAX_WEBVIEW_MESSAGE_BYTES = 64 * 1024;

/** A pending approval as the panel shows it, read from the plan state (core/plan/approvalState.ts). */
export type ApprovalRequestMessage = PendingApproval;

/** Why the host did not apply an answer: a refusal recorded in the trace, or `run_over` (the trace has ended). */
export const AnswerRefusalSchema = z.enum([...ApprovalRefusalSchema.options, 'run_over']);

export const HostToWebviewSchema = z.discriminatedUnion('type', [
  /** `resumable`: the run stopped without finishing and this window can resume it (docs/design.md, “Resuming a run”). */
  z.object({ type: z.literal('host/reset'), runId: z.string(), live: z.boolean(), events: z.array(RunEventSchema), resumable: z.boolean().optional() }),
  z.object({ type: z.literal('host/events'), runId: z.string(), fromSeq: z.number().int().nonnegative(), events: z.array(RunEventSchema) }),
  z.object({
    type: z.literal('host/approvalAnswer'),
    runId: z.string(),
    /** The `replyTo` of the answer this replies to. */
    replyTo: z.string(),
    outcome: z.enum(['accepted', 'refused']),
    reason: AnswerRefusalSchema.optional(),
    /** The refusal in words. */
    message: z.string().optional(),
  }),
  z.object({ type: z.literal('host/notice'), level: z.enum(['info', 'warning', 'error']), message: z.string() }),
]);
export type HostToWebview = z.infer<typeof HostToWebviewSchema>;

const Id = z.string().min(1).max(200);
/** A workspace-relative path of a recorded change. */
const ChangedPath = z
  .string()
  .min(1)
  .max(4096)
  .refine((path) => !path.includes('\0'), 'must not contain NUL');
export const WebviewToHostSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('webview/ready'), runId: Id.optional() }).strict(),
  z.object({ type: z.literal('webview/resync'), runId: Id, fromSeq: z.number().int().nonnegative() }).strict(),
  z
    .object({
      type: z.literal('approval/answer'),
      runId: Id,
      requestId: Id,
      callId: Id,
      argsHash: z.string().regex(/^[0-9a-f]{64}$/),
      decision: z.enum(['approve', 'deny']),
      feedback: z.string().max(4000).optional(),
      /** 'run' / 'workspace': also approve what the request's remember offer covers (docs/design.md, “Remembered approvals”). */
      scope: ApprovalScopeSchema.optional(),
      /** A nonce the host's `host/approvalAnswer` quotes back. */
      replyTo: Id,
    })
    .strict(),
  // A plan approval's answer (docs/design.md, “Step scopes and plan approval”); the host replies with host/approvalAnswer.
  z
    .object({
      type: z.literal('plan/answer'),
      runId: Id,
      requestId: Id,
      approved: z.boolean(),
      feedback: z.string().max(4000).optional(),
      replyTo: Id,
    })
    .strict(),
  z.object({ type: z.literal('run/cancel'), runId: Id }).strict(),
  z.object({ type: z.literal('run/resume'), runId: Id }).strict(),
  z.object({ type: z.literal('step/retry'), runId: Id, stepId: Id }).strict(),
  // A failed or blocked step of a finished run, run again in a new run (docs/design.md, “Retrying a step”).
  z.object({ type: z.literal('run/retryStep'), runId: Id, stepId: Id }).strict(),
  z.object({ type: z.literal('run/openTrace') }).strict(),
  // The fixes for a run that ended on an endpoint error: store a key, open the cortex.llm settings, run the task again.
  z.object({ type: z.literal('endpoint/setApiKey') }).strict(),
  z.object({ type: z.literal('endpoint/openSettings') }).strict(),
  z.object({ type: z.literal('run/retry'), runId: Id }).strict(),
  // Reviewing and reverting changes (docs/design.md, “Checkpoints and revert”); without stepId: the whole run.
  z.object({ type: z.literal('changes/open'), runId: Id, stepId: Id.optional(), path: ChangedPath }).strict(),
  z.object({ type: z.literal('changes/review'), runId: Id, stepId: Id.optional() }).strict(),
  z.object({ type: z.literal('changes/revert'), runId: Id, stepId: Id.optional() }).strict(),
]);
export type WebviewToHost = z.infer<typeof WebviewToHostSchema>;

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function hasForbiddenKey(value: unknown, depth = 0): boolean {
  if (depth > 20) return true;
  if (Array.isArray(value)) return value.some((item) => hasForbiddenKey(item, depth + 1));
  if (value && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key) || hasForbiddenKey((value as Record<string, unknown>)[key], depth + 1)) return true;
    }
  }
  return false;
}

export type ParsedMessage<T> = { ok: true; message: T } | { ok: false; error: string };

/** Validates a message from the webview: size, prototype-pollution keys, then the schema. Never throws. */
export function parseWebviewMessage(raw: unknown): ParsedMessage<WebviewToHost> {
  let size: number;
  try {
    size = JSON.stringify(raw)?.length ?? 0;
  } catch {
    return { ok: false, error: 'message is not serialisable' };
  }
  if (size > MAX_WEBVIEW_MESSAGE_BYTES) return { ok: false, error: `message too large (${size} bytes > ${MAX_WEBVIEW_MESSAGE_BYTES})` };
  if (hasForbiddenKey(raw)) return { ok: false, error: 'message contains a forbidden key (__proto__/constructor/prototype)' };
  const result = WebviewToHostSchema.safeParse(raw);
  if (!result.success) return { ok: false, error: result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
  return { ok: true, message: result.data };
}

/** Validates a message from the host inside the webview. Never throws. */
export function parseHostMessage(raw: unknown): ParsedMessage<HostToWebview> {
  const result = HostToWebviewSchema.safeParse(raw);
  if (!result.success)
    return {
      ok: false,
      error: result.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; '),
    };
  return { ok: true, message: result.data };
}
