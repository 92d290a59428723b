import { AgentRun } from '../core/agent/agentRun';
import { endsTheRun } from '../core/llm/failoverPolicy';
import { EventLog } from '../core/plan/eventLog';
import type { RunEvent } from '../core/plan/events';
import { ApprovalBroker } from '../core/policy/approvalBroker';
import { formatEvent } from '../core/trace/eventText';
import type { cliRunDependencies } from './cliRunDependencies';
import { printLine, type CliIo } from './cliSession';
import { EXIT } from './exitCode';
import { writePlanFileSync } from './planFile';
import { usageFailure } from './usageFailure';

// `cortex plan --out FILE "TASK"` (docs/design.md, “Step scopes and plan approval”): the planner's
// plan, with each step's dependencies, scope and checks, written to a file for review; nothing
// runs. `cortex run --plan FILE` runs it later (e.g. in CI, once the file was reviewed).

export async function planMain(input: {
  io: CliIo;
  out: string;
  task: string;
  workspace: string;
  shared: ReturnType<typeof cliRunDependencies>;
}): Promise<number> {
  const { io } = input;
  const log = new EventLog();
  log.subscribe((event, state) => {
    const line = formatEvent(event, state);
    if (line) printLine(io.stderr, line);
  });
  const agent = new AgentRun({ ...input.shared, task: input.task, workspaceRoot: input.workspace, log, approvals: new ApprovalBroker() });
  let plan;
  try {
    plan = await agent.draftPlan();
  } catch (error) {
    printLine(io.stderr, `cortex plan: ${(error as Error).message}`);
    return plannerUnusable(log.events) ? EXIT.llmSetup : EXIT.incomplete;
  }
  try {
    writePlanFileSync(input.out, input.task, plan);
  } catch (error) {
    return usageFailure(io.stderr, error, 'cortex plan');
  }
  printLine(
    io.stderr,
    `cortex: wrote the plan "${plan.title}" (${plan.steps.length} step${plan.steps.length === 1 ? '' : 's'}) to ${input.out}; review it, then run it with: cortex run --plan ${input.out} --approve plan`,
  );
  return EXIT.completed;
}

/** The planner's request failed for a reason no retry fixes (the endpoint, key, quota or model). */
function plannerUnusable(events: readonly RunEvent[]): boolean {
  const planner = events.find((e): e is Extract<RunEvent, { type: 'llm_request' }> => e.type === 'llm_request' && e.purpose === 'planner' && !e.ok);
  const kind = (planner?.attempts.at(-1) as { errorKind?: string } | undefined)?.errorKind;
  return kind !== undefined && kind !== 'cancelled' && endsTheRun(kind);
}
