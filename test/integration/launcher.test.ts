import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RunEvent } from '../../src/core/plan/events';
import { processIsAlive } from '../../src/core/resume/processState';
import { parseTrace } from '../../src/core/trace/traceReader';
import { tempWorkspace } from '../support/agentHarness';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';
import { runCortexCommand } from '../support/cortexCommand';
import { waitUntil } from './resumeProcess';

// Stopping `cortex` stops the run: the `cortex` command (package.json "bin", run here through a
// symbolic link as `npm link` makes one) runs the CLI in its own process, so a signal sent to the
// process a user started reaches the run itself. After SIGTERM, SIGHUP or SIGKILL nothing of the
// run is left alive, nothing more is written, the trace is interrupted, and `cortex resume` right
// after takes the lock and finishes the run.

const REPO = resolve(__dirname, '..', '..');
const TASK = 'Write late.txt';
/** How long the endpoint takes to send the step's write_file call: the signal comes before it. */
const SLOW_MS = 1500;

function linkedBin(): string {
  const bin = mkdtempSync(join(tmpdir(), 'cortex-bin-'));
  symlinkSync(join(REPO, 'scripts', 'cortex'), join(bin, 'cortex'));
  return join(bin, 'cortex');
}

/** Processes (other than `except`) whose command line names `marker`. */
function processesNaming(marker: string, except: number[] = []): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || except.includes(Number(entry))) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker) && processIsAlive(Number(entry))) found.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

function traceEvents(trace: string): RunEvent[] {
  const text = existsSync(trace) ? readFileSync(trace, 'utf8') : '';
  return text.trim() === '' ? [] : parseTrace(text, trace).events;
}

describe('the cortex command and signals', function () {
  this.timeout(90_000);
  let server: ScriptedServer;
  let cortex: string;
  const control: { slow: boolean; command?: string } = { slow: true };

  before(async () => {
    const built = spawnSync(process.execPath, [join(REPO, 'scripts', 'build.mjs'), '--only=cli'], { cwd: REPO, encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
    cortex = linkedBin();
    server = await startScriptedServer(
      route({
        planner: json({ title: 'Late write', steps: ['Write late.txt'], dependencies: {} }),
        executor: (req) => {
          if (toolMessages(req).length > 0) return message('late.txt written');
          if (control.command) return toolCalls(call('run_command', { command: control.command }));
          const reply = toolCalls(call('write_file', { path: 'late.txt', content: 'late\n' }));
          return control.slow ? { ...reply, delayMs: SLOW_MS } : reply;
        },
        aggregator: message('done'),
      }),
    );
  });
  after(async () => server?.close());

  it('`cortex --help` through the linked command answers, in one process', () => {
    const result = spawnSync(cortex, ['--help'], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /Usage: cortex run/);
  });

  it("commands the run starts find the user's own node on PATH, not the bundled Node 24 that runs Cortex", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cortex-path-'));
    const config = join(dir, 'config.json');
    // The sandbox's view of the user's folders is the sandbox's own test; this one is about PATH.
    writeFileSync(
      config,
      JSON.stringify({ 'cortex.llm.baseUrl': server.baseUrl, 'cortex.llm.model': 'scripted-model', 'cortex.llm.maxRetries': 0, 'cortex.sandbox.mode': 'off' }),
    );
    const workspace = tempWorkspace();
    // The user's toolchain: a `node` of their own, first on their PATH (outside the workspace, as
    // an auto-approved command's program must be).
    const tools = join(dir, 'tools');
    mkdirSync(tools);
    writeFileSync(join(tools, 'node'), '#!/bin/sh\necho "the user\'s node $*" > which-node.txt\n', { mode: 0o755 });
    control.command = 'node --version';
    try {
      const result = await runCortexCommand(
        ['run', '--workspace', workspace, '--config', config, '--approve', 'all', 'Print the node version'],
        {
          ...process.env,
          OPENAI_API_KEY: 'sk-test',
          PATH: `${tools}:/usr/bin:/bin`,
        },
        cortex,
      );
      assert.equal(result.code, 0, result.stderr);
      assert.equal(readFileSync(join(workspace, 'which-node.txt'), 'utf8'), "the user's node --version\n");
    } finally {
      control.command = undefined;
    }
  });

  for (const signal of ['SIGTERM', 'SIGHUP', 'SIGKILL'] as const) {
    it(`${signal} to the process a user started stops the run; cortex resume right after takes the lock and finishes it`, async () => {
      control.slow = true;
      const dir = mkdtempSync(join(tmpdir(), 'cortex-signal-'));
      const config = join(dir, 'config.json');
      writeFileSync(config, JSON.stringify({ 'cortex.llm.baseUrl': server.baseUrl, 'cortex.llm.model': 'scripted-model', 'cortex.llm.maxRetries': 0 }));
      const workspace = tempWorkspace();
      const trace = join(dir, 'run.jsonl');
      const env = { ...process.env, OPENAI_API_KEY: 'sk-test' };
      const before = server.chatRequests().length;
      const child = spawn(cortex, ['run', '--workspace', workspace, '--config', config, '--trace', trace, '--approve', 'all', TASK], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
        child.on('exit', (code, sig) => done({ code, signal: sig })),
      );
      await waitUntil(
        () =>
          server
            .chatRequests()
            .slice(before)
            .some((r) => r.purpose === 'executor'),
        'the step’s request at the endpoint',
      );
      // The process the user started is the one running the run: no launcher in between.
      assert.match(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8'), /dist\/cli\.js/);
      child.kill(signal);
      const stoppedAt = Date.now();
      const outcome = await Promise.race([exited, new Promise<'running'>((done) => setTimeout(() => done('running'), 2000))]);
      assert.notEqual(outcome, 'running', `the run was still going 2 s after ${signal}; it said:\n${stderr}`);
      assert.deepEqual(processesNaming(trace), [], 'no process of the run is left');
      // Past the moment the endpoint would have sent the write: nothing was written after the signal.
      await new Promise((r) => setTimeout(r, Math.max(0, SLOW_MS + 300 - (Date.now() - stoppedAt))));
      assert.equal(existsSync(join(workspace, 'late.txt')), false, 'no file was written after the signal');
      const events = traceEvents(trace);
      assert.ok(events.some((e) => e.type === 'run_started'));
      assert.equal(
        events.some((e) => e.type === 'run_finished'),
        false,
        'the trace is interrupted, not finished',
      );
      if (signal !== 'SIGKILL') assert.match(stderr, new RegExp(`interrupted \\(${signal}\\); continue with: cortex resume --trace`));

      control.slow = false;
      // Spawned, not spawnSync: the scripted server answers from this process.
      const resumed = await runCortexCommand(['resume', '--trace', trace, '--workspace', workspace, '--config', config, '--approve', 'all'], env, cortex);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(readFileSync(join(workspace, 'late.txt'), 'utf8'), 'late\n');
      assert.equal(traceEvents(trace).filter((e) => e.type === 'run_finished').length, 1);
      assert.equal(existsSync(`${trace}.lock`), false, 'the resume released the lock');
    });
  }
});
