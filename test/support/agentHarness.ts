import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRun, type RunResult } from '../../src/core/agent/agentRun';
import { parseConfig } from '../../src/core/config/configSchema';
import { EventLog } from '../../src/core/plan/eventLog';
import type { RunEvent } from '../../src/core/plan/events';
import { ApprovalBroker, type ApprovalRequest } from '../../src/core/policy/approvalBroker';
import type { ScriptedServer } from './scriptedServer';
import type { ApprovalMemory } from '../../src/core/policy/approvalMemory';
import type { PlanApprovalState } from '../../src/core/plan/planApprovalSchema';
import type { PlanApprovalBroker } from '../../src/core/policy/planApprovalBroker';

export function tempWorkspace(prefix = 'cortex-ws-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** A fresh workspace folder and a trace path beside it, outside the workspace. */
export function workspaceAndTrace(prefix: string): { ws: string; trace: string } {
  const base = tempWorkspace(prefix);
  const ws = join(base, 'ws');
  mkdirSync(ws);
  return { ws, trace: join(base, 'run.jsonl') };
}

/**
 * Starts `agent` and cancels it, as a process that dies would stop, at the first event `stopAt`
 * picks; returns the events up to and including it (undefined when the run ended first).
 */
export async function runUntil(agent: AgentRun, log: EventLog, stopAt: (event: RunEvent) => boolean): Promise<RunEvent[] | undefined> {
  let recorded: RunEvent[] | undefined;
  log.subscribe((event) => {
    if (recorded || !stopAt(event)) return;
    recorded = [...log.events];
    agent.cancel('the process died');
  });
  await agent.start();
  return recorded;
}

export interface HarnessOptions {
  task?: string;
  workspace?: string;
  settings?: Record<string, unknown>;
  trusted?: boolean;
  holdDeniedGates?: boolean;
  /** Called for each new approval request (answer through the broker, or not at all). */
  onApproval?: (request: ApprovalRequest, broker: ApprovalBroker, run: AgentRun) => void;
  /** The run's checkpoint folder: file changes (made by commands too) are recorded. */
  checkpointsDir?: string;
  /** Remembered answers the run's broker applies (docs/design.md, “Remembered approvals”). */
  memory?: ApprovalMemory;
  /** Called for each new plan approval request (docs/design.md, “Step scopes and plan approval”). */
  onPlanApproval?: (request: PlanApprovalState, plans: PlanApprovalBroker) => void;
  /** Called once the run has started (e.g. to cancel it later). */
  onStart?: (run: AgentRun, log: EventLog) => void;
}

export interface HarnessResult {
  result: RunResult;
  events: RunEvent[];
  log: EventLog;
  workspace: string;
  run: AgentRun;
}

/** Runs the real agent (real openai client, real tools) against the scripted server. */
export async function runAgainst(server: ScriptedServer, options: HarnessOptions = {}): Promise<HarnessResult> {
  const workspace = options.workspace ?? tempWorkspace();
  const config = parseConfig({
    'cortex.llm.baseUrl': server.baseUrl,
    'cortex.llm.model': 'test-model',
    'cortex.llm.maxRetries': 0,
    'cortex.llm.requestTimeoutSeconds': 20,
    ...options.settings,
  });
  const log = new EventLog({
    onListenerError: (error) => {
      throw error;
    },
  });
  const approvals = new ApprovalBroker(options.memory ? { memory: options.memory } : {});
  const run = new AgentRun({
    task: options.task ?? 'test task',
    workspaceRoot: workspace,
    config,
    apiKey: 'test-key',
    log,
    approvals,
    trusted: options.trusted ?? true,
    holdDeniedGates: options.holdDeniedGates,
    checkpointsDir: options.checkpointsDir,
  });
  const seen = new Set<string>();
  if (options.onApproval) {
    approvals.onDidChange((pending) => {
      for (const request of pending) {
        if (seen.has(request.requestId)) continue;
        seen.add(request.requestId);
        options.onApproval!(request, approvals, run);
      }
    });
  }
  if (options.onPlanApproval) {
    approvals.plans.onDidChange((request) => {
      if (!request || seen.has(request.requestId)) return;
      seen.add(request.requestId);
      options.onPlanApproval!(request, approvals.plans);
    });
  }
  options.onStart?.(run, log);
  const result = await run.start();
  return { result, events: log.events, log, workspace, run };
}

export function eventsOf<T extends RunEvent['type']>(events: readonly RunEvent[], type: T): Extract<RunEvent, { type: T }>[] {
  return events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
}
