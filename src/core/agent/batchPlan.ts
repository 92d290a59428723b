import type { FlatConfig } from '../config/configSchema';
import type { CallProtection } from '../tools/callProtection';
import { decideToolPolicy, type PolicyVerdict } from '../policy/toolPolicy';
import { canonicalJson } from '../text/canonicalJson';
import type { InvalidCall, PreparedCall, RunnableCall } from '../tools/toolPipeline';

// What happens to each call of a batch, decided before anything runs (docs/design.md, “Running a batch of calls”): the
// invalid ones get their payload, repeats within the batch of a tool that only reads or is
// declared idempotent reuse the first call's result, the policy (docs/design.md, “Policy”)
// rejects, asks for approval, or lets the call run. A repeat of any other tool runs: two equal
// random draws, two appends or two deploys are two calls.

export type BatchEntry =
  | { disposition: 'invalid'; call: InvalidCall }
  /** The same read-only or idempotent tool and arguments as `original`, an earlier call of the batch: it does not run, it reuses that result. */
  | { disposition: 'duplicate'; call: RunnableCall; original: RunnableCall }
  /** Denied by the policy: completed as an error at once. */
  | { disposition: 'rejected'; call: RunnableCall; verdict: PolicyVerdict }
  /** Runs once a person approved it (docs/design.md, “Approvals”). */
  | { disposition: 'confirm'; call: RunnableCall; verdict: PolicyVerdict }
  | { disposition: 'run'; call: RunnableCall; verdict: PolicyVerdict };

/**
 * Whether running the call twice gives nothing a single run does not: the tool declares it
 * `idempotent` (the read tools, MCP tools annotated `readOnlyHint` or `idempotentHint`).
 */
export function isRepeatSafe(call: RunnableCall): boolean {
  return call.tool.idempotent;
}

/** Identity of a call for de-duplication within a batch: name + canonical args. */
function dedupeKey(call: RunnableCall): string {
  return `${call.name}\u0000${canonicalJson(call.args)}`;
}

/** The replayed calls of a batch (every call but the unparseable ones), each with its disposition, in index order. */
export async function planBatch(
  calls: readonly PreparedCall[],
  policy: { config: FlatConfig; trusted: boolean; protection: CallProtection },
): Promise<BatchEntry[]> {
  const firstByKey = new Map<string, RunnableCall>();
  const entries: BatchEntry[] = [];
  for (const call of calls) {
    if (call.disposition === 'unparseable') continue;
    if (call.disposition === 'invalid') {
      entries.push({ disposition: 'invalid', call });
      continue;
    }
    if (isRepeatSafe(call)) {
      const key = dedupeKey(call);
      const original = firstByKey.get(key);
      if (original) {
        entries.push({ disposition: 'duplicate', call, original });
        continue;
      }
      firstByKey.set(key, call);
    }
    const protectedAccess = await policy.protection.find(call.tool, call.args);
    const verdict = decideToolPolicy({
      toolName: call.name,
      tool: call.tool,
      args: call.args,
      config: policy.config,
      trusted: policy.trusted,
      protectedAccess,
    });
    const disposition = verdict.decision === 'deny' ? 'rejected' : verdict.decision === 'confirm' ? 'confirm' : 'run';
    entries.push({ disposition, call, verdict });
  }
  return entries;
}
