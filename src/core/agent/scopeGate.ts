import { realpathSync } from 'node:fs';
import type { ProtectedPathMatcher } from '../files/protectedPaths';
import { resolveInWorkspace } from '../files/workspaceJail';
import { declaredFileAccesses } from '../policy/fileAccess';
import { planIsApproved } from '../plan/planApprovalFold';
import { stepAuditEvent } from '../plan/stepAudits';
import { folderInScope, judgeScope, scopeRelativePath, verdictUnderPlan, writeInScope } from '../policy/stepScopeMatch';
import type { BatchEntry } from './batchPlan';
import { planMode } from './planApproval';
import type { RunContext } from './runContext';

// Step scopes in a batch of calls (docs/design.md, “Step scopes and plan approval”): once the
// plan is approved, a call inside its step's scope runs without asking, and a call outside it asks
// and is recorded as drift (`step_audit` `drift`). A command's recorded changes outside the step's
// write globs are drift too, found after it ran. Before approval and in the `call` mode nothing changes.

/** True when the step's scope decides what runs unasked. */
function scopesApply(context: RunContext): boolean {
  return planMode(context) && planIsApproved(context.log.state);
}

/** Where each path a call writes really leads (links followed), workspace-relative; undefined: outside or unresolvable. */
async function realWritePaths(workspaceRoot: string, entry: BatchEntry): Promise<Map<string, string | undefined>> {
  const real = new Map<string, string | undefined>();
  if (entry.disposition !== 'run' && entry.disposition !== 'confirm') return real;
  for (const access of declaredFileAccesses(entry.call.tool, entry.call.args)) {
    if (access.access !== 'write' || real.has(access.path)) continue;
    try {
      const root = realpathSync.native(workspaceRoot);
      real.set(access.path, scopeRelativePath(root, await resolveInWorkspace(workspaceRoot, access.path)));
    } catch {
      real.set(access.path, undefined);
    }
  }
  return real;
}

/** The batch's entries under the approved plan; records a drift audit for each call outside its step's scope. */
export async function applyStepScope(context: RunContext, stepId: string, entries: BatchEntry[], matcher: ProtectedPathMatcher): Promise<BatchEntry[]> {
  if (!scopesApply(context)) return entries;
  const scope = context.log.state.steps.get(stepId)?.scope;
  // A write through a link reaches another file: both must be in scope.
  const realPaths = await Promise.all(entries.map((entry) => realWritePaths(context.workspaceRoot, entry)));
  return entries.map((entry, i) => {
    if (entry.disposition !== 'run' && entry.disposition !== 'confirm') return entry;
    const judgement = judgeScope(
      { tool: entry.call.tool, args: entry.call.args, folders: entry.call.name === 'create_directory', realPaths: realPaths[i] },
      scope,
      context.workspaceRoot,
      matcher,
    );
    const verdict = verdictUnderPlan(entry.verdict, judgement, scope);
    if (judgement.kind === 'outside')
      context.log.append(stepAuditEvent(stepId, { kind: 'drift', data: { callId: entry.call.call.id, what: judgement.what, scope: { ...scope } } }));
    return { disposition: verdict.decision === 'confirm' ? 'confirm' : 'run', call: entry.call, verdict };
  });
}

/** After a command ran under the approved plan: its recorded changes outside the step's write globs are drift. */
export function recordCommandDrift(context: RunContext, stepId: string, callId: string, matcher: ProtectedPathMatcher): void {
  if (!scopesApply(context)) return;
  const step = context.log.state.steps.get(stepId);
  const paths = (step?.changes ?? [])
    .filter((change) => change.callId === callId)
    .map((change) => ({ path: scopeRelativePath(context.workspaceRoot, change.path) ?? change.path, folder: change.directory === true }))
    .filter((change) => !(change.folder ? folderInScope : writeInScope)(step?.scope, change.path, matcher))
    .map((change) => change.path);
  if (paths.length === 0) return;
  context.log.append(
    stepAuditEvent(stepId, { kind: 'drift', data: { callId, what: `changed ${paths.join(', ')} (through a command)`, scope: { ...step?.scope }, paths } }),
  );
}
