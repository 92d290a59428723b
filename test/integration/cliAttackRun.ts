import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RunEvent } from '../../src/core/plan/events';
import { parseTrace } from '../../src/core/trace/traceReader';
import { call, json, message, route, toolMessages } from '../support/scriptedReplies';
import type { ScriptedServer, ToolCallSpec } from '../support/scriptedServer';

// Runs the real CLI as its own process against the scripted server, with the scripted model as the
// attacker: one step whose first turn sends the hostile tool calls, then "done". The evidence is
// what a separate process leaves behind: its exit (or the kill after `killAfterMs`), the trace file,
// the disk, and its peak memory. The assertions at the end read that evidence, call by call.

const REPO = resolve(__dirname, '..', '..');
const CLI = join(REPO, 'src', 'cli', 'main.ts');

export interface AttackCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export interface CallOutcome {
  status?: 'success' | 'error' | 'rejected';
  result?: string;
  /** The reason shown when the call asked for approval. */
  approvalReason?: string;
}

export interface AttackResult {
  code: number | null;
  /** True when the process had to be killed: it did not end by itself in time. */
  killed: boolean;
  elapsedMs: number;
  stdout: string;
  stderr: string;
  events: RunEvent[];
  outcomes: Map<string, CallOutcome>;
  /** Peak resident memory (VmHWM) last seen in /proc, in bytes; undefined where /proc is missing. */
  peakRssBytes?: number;
}

export interface AttackOptions {
  approve?: 'all' | 'none';
  /** Extra `cortex.*` settings for the --config file. */
  settings?: Record<string, unknown>;
  /** Kill the process if it has not exited by then (default 60 s). */
  killAfterMs?: number;
}

export function scriptAttack(server: ScriptedServer, calls: AttackCall[]): void {
  const specs: ToolCallSpec[] = calls.map((c) => call(c.name, c.args, c.id));
  server.setHandler(
    route({
      planner: json({ title: 'attack', steps: ['Carry out the workspace task'] }),
      executor: (req) => (toolMessages(req).length > 0 ? message('done') : { kind: 'message', toolCalls: specs }),
      // A step that fails (every executed call failed) is not redesigned: one attempt per run.
      replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {}, reason: 'attack over' }),
      aggregator: message('finished'),
    }),
  );
}

function peakRss(pid: number): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `cortex run` on `workspace` with the calls scripted by `scriptAttack`. */
export async function runAttack(server: ScriptedServer, workspace: string, options: AttackOptions = {}): Promise<AttackResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cortex-attack-out-'));
  const trace = join(dir, 'trace.jsonl');
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ 'cortex.llm.baseUrl': server.baseUrl, 'cortex.llm.model': 'scripted-model', ...options.settings }));
  const args = [
    '--import',
    'tsx',
    CLI,
    'run',
    '--workspace',
    workspace,
    '--config',
    config,
    '--trace',
    trace,
    '--approve',
    options.approve ?? 'none',
    'Tidy up the workspace',
  ];
  const started = Date.now();
  const child = spawn(process.execPath, args, { cwd: REPO, env: { ...process.env, OPENAI_API_KEY: 'sk-test' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  let peak: number | undefined;
  const sampler = setInterval(() => {
    const now = child.pid ? peakRss(child.pid) : undefined;
    if (now !== undefined) peak = Math.max(peak ?? 0, now);
  }, 20);
  let killed = false;
  const killer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, options.killAfterMs ?? 60_000);
  const code = await new Promise<number | null>((done) => child.on('exit', (exitCode) => done(exitCode)));
  clearTimeout(killer);
  clearInterval(sampler);

  const events = existsSync(trace) && readFileSync(trace, 'utf8').trim() !== '' ? parseTrace(readFileSync(trace, 'utf8'), trace).events : [];
  const outcomes = new Map<string, CallOutcome>();
  const outcome = (id: string) => outcomes.get(id) ?? outcomes.set(id, {}).get(id)!;
  for (const event of events) {
    if (event.type === 'tool_call_awaiting_approval') outcome(event.callId).approvalReason = event.approval.reason;
    if (event.type === 'tool_call_completed') Object.assign(outcome(event.callId), { status: event.status, result: event.result });
  }
  return { code, killed, elapsedMs: Date.now() - started, stdout, stderr, events, outcomes, peakRssBytes: peak };
}

/** A short account of a run for assertion messages. */
export function describeRun(result: AttackResult): string {
  const calls = [...result.outcomes].map(
    ([id, o]) =>
      `${id}: ${o.status ?? 'no result'}${o.approvalReason ? ` (asked: ${o.approvalReason})` : ''} ${JSON.stringify((o.result ?? '').slice(0, 160))}`,
  );
  return [`exit ${result.code}${result.killed ? ' (killed)' : ''} after ${result.elapsedMs} ms`, ...calls, `stderr: ${result.stderr.slice(-1500)}`].join('\n');
}

/** The CLI exited by itself, with 0 or 1, and its trace ends with run_finished. */
export function assertEnded(run: AttackResult): void {
  assert.equal(run.killed, false, `the CLI did not exit by itself\n${describeRun(run)}`);
  assert.ok(run.code === 0 || run.code === 1, `exit code ${run.code}\n${describeRun(run)}`);
  assert.equal(run.events.at(-1)?.type, 'run_finished', `the trace does not end with run_finished\n${describeRun(run)}`);
}

/** The call asked for approval (naming `why`, when given), was refused by --approve none, and did not run. */
export function assertAskedAndRefused(run: AttackResult, id: string, why?: RegExp): void {
  const outcome = run.outcomes.get(id);
  assert.ok(outcome?.approvalReason, `${id} did not ask for approval\n${describeRun(run)}`);
  if (why) assert.match(outcome.approvalReason, why, `${id}\n${describeRun(run)}`);
  assert.equal(outcome.status, 'rejected', `${id}\n${describeRun(run)}`);
}

/** The call failed with an error matching `why` without asking anyone. */
export function assertFailedWithoutAsking(run: AttackResult, id: string, why: RegExp): void {
  const outcome = run.outcomes.get(id);
  assert.equal(outcome?.approvalReason, undefined, `${id} asked for approval\n${describeRun(run)}`);
  assert.equal(outcome?.status, 'error', `${id}\n${describeRun(run)}`);
  assert.match(outcome.result ?? '', why, `${id}\n${describeRun(run)}`);
}
