import assert from 'node:assert/strict';
import { ReadyQueue } from '../../../src/core/agent/readyQueue';
import { EventLog } from '../../../src/core/plan/eventLog';
import { RunEventSchema, type NewRunEvent } from '../../../src/core/plan/events';
import type { PlanState } from '../../../src/core/plan/planTypes';
import type { StepEndReason } from '../../../src/core/agent/stepExecutor';
import { stepEndEvents } from '../../../src/core/agent/stepJudgement';
import { addStepsEvents, addToolCallEvent, startStepEvent, StepIdAllocator, updateToolResultEvent } from '../../../src/core/plan/planOperations';

// Shared helpers for the plan and agent unit tests: a log whose every event is checked against
// RunEventSchema, and an example eight-step DAG built through the real operations.

/** An EventLog with a ticking clock that rejects any event RunEventSchema does not accept. */
export function newLog(): EventLog {
  let clock = 1_000;
  const log = new EventLog({
    now: () => clock++,
    onListenerError: (error) => {
      throw error;
    },
  });
  log.subscribe((event) => {
    RunEventSchema.parse(event);
  });
  log.append({ type: 'run_started', runId: 'run-1', task: 'Build a REST API', workspace: '/ws', model: 'm', baseUrl: 'http://127.0.0.1' });
  return log;
}

/** A log with raw step_added events (no checks), to build shapes the operations refuse. */
export function rawPlan(deps: Record<string, string[]>): EventLog {
  const log = newLog();
  for (const [id, dependsOn] of Object.entries(deps)) {
    log.append({ type: 'step_added', stepId: id, description: `step ${id}`, dependsOn, lineage: id, replanAttempts: 0, origin: 'planner' });
  }
  return log;
}

export function appendAll(log: EventLog, events: readonly NewRunEvent[]): void {
  for (const event of events) log.append(event);
}

/** The example plan: {1:[0], 2:[0], 3:[1], 4:[2], 5:[3,4], 6:[5], 7:[5]}; index i gets id s{i+1}. */
export const EXAMPLE_DEPENDENCIES = { 1: [0], 2: [0], 3: [1], 4: [2], 5: [3, 4], 6: [5], 7: [5] };
export const EXAMPLE_STEPS = [
  'Analyse requirements',
  'Create project structure',
  'Plan the database',
  'Write data models',
  'Set up the database connection',
  'Write API endpoints',
  'Write tests',
  'Run tests',
];
/** Id of the example plan's step `index`. */
export const sid = (index: number) => `s${index + 1}`;

export function examplePlan(): { log: EventLog; ids: StepIdAllocator } {
  const log = newLog();
  const ids = new StepIdAllocator();
  log.append({ type: 'plan_created', title: 'REST API' });
  appendAll(
    log,
    addStepsEvents(log.state, { descriptions: EXAMPLE_STEPS, dependencies: EXAMPLE_DEPENDENCIES, anchorDeps: [], origin: 'planner', newId: () => ids.next() }),
  );
  return { log, ids };
}

export interface CallSpec {
  name: string;
  args: Record<string, unknown>;
  /** Omitted: the call stays pending (the model claimed it, nothing ran). */
  result?: string;
  status?: 'success' | 'error' | 'rejected';
}

let callCounter = 0;

/** Runs a step through start → calls → results → its end, with the builders and the step-end rule the agent uses. */
export function runStep(log: EventLog, stepId: string, calls: CallSpec[], options: { output?: string; endReason?: StepEndReason } = {}) {
  log.append(startStepEvent(log.state, stepId));
  for (const call of calls) {
    const id = `call_${++callCounter}`;
    log.append(addToolCallEvent(log.state, stepId, { id, name: call.name, arguments: call.args }));
    if (call.result !== undefined) log.append(updateToolResultEvent(log.state, stepId, id, { status: call.status, result: call.result }));
  }
  appendAll(
    log,
    stepEndEvents(log.state, stepId, { kind: 'loop', outcome: { output: options.output ?? '', endReason: options.endReason ?? 'answered' } }).events,
  );
  return log.state.steps.get(stepId)!.verdict!;
}

/** Completes the example plan's steps 0–4 with real tool histories and outputs. */
export function completeExampleUpstream(log: EventLog): void {
  runStep(log, sid(0), [{ name: 'read_file', args: { path: 'requirements.md' }, result: 'Need a REST API...' }], { output: 'requirements read' });
  runStep(
    log,
    sid(1),
    [
      { name: 'create_directory', args: { path: 'src/' }, result: 'Directory created' },
      { name: 'create_directory', args: { path: 'tests/' }, result: 'Directory created' },
    ],
    { output: 'structure ready' },
  );
  runStep(log, sid(2), [], { output: 'use sqlite' });
  runStep(log, sid(3), [{ name: 'write_file', args: { path: 'src/models.py', content: 'class User: ...' }, result: 'File written' }], {
    output: 'models written',
  });
  runStep(
    log,
    sid(4),
    [
      { name: 'write_file', args: { path: 'src/database.py', content: 'engine = ...' }, result: 'File written' },
      { name: 'run_command', args: { command: "python -c 'import sqlalchemy'" }, result: 'OK' },
    ],
    { output: 'database ready' },
  );
}

export function assertStatuses(log: EventLog, expected: Record<string, string>): void {
  const actual = Object.fromEntries(Object.keys(expected).map((id) => [id, log.state.steps.get(id)?.status ?? 'missing']));
  assert.deepEqual(actual, expected);
}

/** The steps the scheduler would start now (its ReadyQueue), highest priority first. */
export function readySteps(state: PlanState): string[] {
  return new ReadyQueue(state).ready(new Set());
}
