import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main';
import { readTraceSync } from '../support/traceFile';
import { tempWorkspace } from '../support/agentHarness';
import { call, error, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';

/** Any character a terminal acts on instead of showing (newline and tab are fine). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
/** Exactly two periods in a row (an ellipsis of three is fine). */
const DOUBLE_PERIOD = /(^|[^.])\.\.(?!\.)/m;

function collect() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d) => (text += d));
  return { stream, text: () => text };
}

/**
 * Runs `cortex` in-process. Every output of every test is checked for the rules that hold for all
 * of them: no raw terminal controls, no double periods, no stack traces.
 */
async function cli(argv: string[], env: Record<string, string> = {}) {
  const stdout = collect();
  const stderr = collect();
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const code = await main(argv, { stdout: stdout.stream, stderr: stderr.stream, stdin: stdin, cwd: process.cwd(), env });
  const result = { code, stdout: stdout.text(), stderr: stderr.text() };
  for (const text of [result.stdout, result.stderr]) {
    assert.doesNotMatch(text, RAW_CONTROL, `raw terminal control in:\n${text}`);
    assert.doesNotMatch(text, DOUBLE_PERIOD, `double period in:\n${text}`);
    assert.doesNotMatch(text, /\n\s+at /, `stack trace in:\n${text}`);
  }
  return result;
}

const count = (text: string, part: string) => text.split(part).length - 1;

const commandScript = () =>
  route({
    planner: json({ title: 'cmd', steps: ['Run echo', 'Summarise'], dependencies: { '1': [0] } }),
    executor: (req) =>
      JSON.stringify(req.body.messages).includes('Summarise')
        ? message('summary')
        : toolMessages(req).length
          ? message('ran')
          : toolCalls(call('run_command', { command: 'echo hi > hi.txt' })),
    aggregator: message('All done.'),
  });

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('cortex CLI', function () {
  this.timeout(30_000);
  const server = useScriptedServer();

  it('exit 0, answer on stdout, trace file ending with run_finished, --approve all answers confirmations', async () => {
    server().setHandler(commandScript());
    const ws = tempWorkspace();
    const trace = join(ws, '..', `${Date.now()}-trace.jsonl`);
    const result = await cli(['run', '--workspace', ws, '--base-url', server().baseUrl, '--model', 'm', '--trace', trace, '--approve', 'all', 'say hi']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'All done.');
    assert.equal(readFileSync(join(ws, 'hi.txt'), 'utf8').trim(), 'hi');
    const { events } = readTraceSync(trace);
    assert.equal(events.at(-1)!.type, 'run_finished');
    assert.match(result.stderr, /awaiting approval/);
  });

  it('--approve none denies, and without a TTY confirmations are denied; exit 1 when steps are blocked', async () => {
    server().setHandler(commandScript());
    const ws = tempWorkspace();
    const config = join(ws, '..', `${Date.now()}-cfg.json`);
    writeFileSync(
      config,
      JSON.stringify({ 'cortex.llm.baseUrl': server().baseUrl, 'cortex.llm.model': 'm', 'cortex.policy.tools': { run_command: 'confirm-required' } }),
    );
    const denied = await cli(['run', '--workspace', ws, '--config', config, '--approve', 'none', 'say hi']);
    assert.equal(denied.code, 1);
    assert.equal(existsSync(join(ws, 'hi.txt')), false);
    const noTty = await cli(['run', '--workspace', ws, '--config', config, 'say hi']);
    assert.equal(noTty.code, 1);
    assert.equal(existsSync(join(ws, 'hi.txt')), false);
  });

  it('the run summary of a failed run says what happened in words, with step descriptions, the same sentence the trace (and the notification) keep', async () => {
    server().setHandler(commandScript());
    const ws = tempWorkspace();
    const config = join(ws, '..', `${Date.now()}-words.json`);
    writeFileSync(
      config,
      JSON.stringify({ 'cortex.llm.baseUrl': server().baseUrl, 'cortex.llm.model': 'm', 'cortex.policy.tools': { run_command: 'confirm-required' } }),
    );
    const trace = join(ws, '..', `${Date.now()}-words.jsonl`);
    const denied = await cli(['run', '--workspace', ws, '--config', config, '--trace', trace, '--approve', 'none', 'say hi']);
    assert.equal(denied.code, 1);
    const sentence =
      '2 of 2 steps did not complete. Run echo was blocked: a required approval was denied; the step is blocked until it is retried. One step after it did not run: Summarise.';
    const summary = denied.stderr.split('\n').find((line) => line.startsWith('run failed'));
    assert.equal(summary, `run failed: ${sentence}`, denied.stderr);
    const finished = readTraceSync(trace).events.find((e) => e.type === 'run_finished');
    assert.ok(finished?.type === 'run_finished' && finished.error === sentence, JSON.stringify(finished));
  });

  describe('exit 2: one line in plain words for usage and configuration mistakes', () => {
    it('a bad config value, a missing or non-directory workspace, bad JSON, a missing config file', async () => {
      const ws = tempWorkspace();
      const bad = join(ws, 'bad.json');
      writeFileSync(bad, JSON.stringify({ 'cortex.execution.maxParallelSteps': 0 }));
      const results = [];
      const r1 = await cli(['run', '--workspace', ws, '--config', bad, 'x']);
      assert.match(r1.stderr, /cortex\.execution\.maxParallelSteps/);
      results.push(r1);
      const r2 = await cli(['run', '--workspace', join(ws, 'nope'), 'x']);
      assert.equal(r2.stderr, `cortex: workspace ${join(ws, 'nope')} does not exist\n`);
      results.push(r2);
      const r3 = await cli(['run', '--workspace', bad, 'x']);
      assert.equal(r3.stderr, `cortex: workspace ${bad} is not a directory\n`);
      results.push(r3);
      writeFileSync(bad, '{nope');
      const r4 = await cli(['run', '--workspace', ws, '--config', bad, 'x']);
      assert.match(r4.stderr, /^cortex: config file .*bad\.json is not valid JSON: /);
      results.push(r4);
      const r5 = await cli(['run', '--workspace', ws, '--config', join(ws, 'missing.json'), 'x']);
      assert.equal(r5.stderr, `cortex: config file ${join(ws, 'missing.json')} does not exist\n`);
      results.push(r5);
      const r6 = await cli(['run', '--workspace', ws, '--trace', join(bad, 'trace.jsonl'), 'x']);
      assert.equal(r6.stderr, `cortex: trace file ${join(bad, 'trace.jsonl')} cannot be written: ${bad} is a file, not a directory\n`);
      results.push(r6);
      // Under /proc no folder can be made (Node's own recursive mkdir would loop there for ever).
      assert.ok(existsSync('/proc/self'), 'this test needs Linux /proc');
      const r7 = await cli(['run', '--workspace', ws, '--trace', '/proc/cortex-nope/trace.jsonl', 'x']);
      assert.equal(
        r7.stderr,
        'cortex: trace file /proc/cortex-nope/trace.jsonl cannot be written: the folder /proc/cortex-nope cannot be created (no such file or directory)\n',
      );
      results.push(r7);
      for (const r of results) {
        assert.equal(r.code, 2, r.stderr);
        assert.equal(count(r.stderr, '\n'), 1, r.stderr);
        assert.doesNotMatch(r.stderr, /ENOENT|ENOTDIR|EISDIR|cortex --help/, r.stderr);
      }
    });

    it('an unknown option or a missing value, in Cortex words with a pointer to --help', async () => {
      const unknown = await cli(['run', '--foo', 'x']);
      assert.equal(unknown.code, 2);
      assert.equal(unknown.stderr, 'cortex: unknown option --foo; run "cortex --help"\n');
      const missing = await cli(['run', 'x', '--model']);
      assert.equal(missing.stderr, 'cortex: --model needs a value; run "cortex --help"\n');
    });

    it('--help documents exit code 3', async () => {
      const help = await cli(['--help']);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /^ {2}3 {2}the LLM endpoint could not be used before any step ran/m);
    });
  });

  describe('exit 3: the endpoint, key or model cannot be used, before any step ran', () => {
    it('an unreachable endpoint (closed port), as a real process, said once', async () => {
      const ws = tempWorkspace();
      const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
      const child = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', '--workspace', ws, '--base-url', baseUrl, '--model', 'm', 'x'], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, OPENAI_API_KEY: '' },
      });
      assert.equal(child.status, 3, child.stderr);
      assert.equal(count(child.stderr, 'Cannot reach'), 1, child.stderr);
      assert.match(
        child.stderr,
        new RegExp(
          `^run failed: Cannot reach the LLM endpoint ${baseUrl.replace(/[.]/g, '\\.')} \\(ECONNREFUSED\\)\\. Check --base-url and that the server is running\\.$`,
          'm',
        ),
      );
      assert.doesNotMatch(child.stderr, /request failed/);
      assert.doesNotMatch(child.stderr, /\n\s+at /);
    });

    it('a rejected key (401) says what to do in a shell, once', async () => {
      await server.restart(commandScript(), { apiKey: 'sk-right' });
      const ws = tempWorkspace();
      const result = await cli(['run', '--workspace', ws, '--base-url', server().baseUrl, '--model', 'm', 'x'], { OPENAI_API_KEY: 'sk-wrong' });
      assert.equal(result.code, 3, result.stderr);
      assert.equal(count(result.stderr, 'rejected the API key'), 1, result.stderr);
      assert.match(result.stderr, /^run failed: The endpoint rejected the API key \(401\)\. Set OPENAI_API_KEY to a key this endpoint accepts\.$/m);
      assert.doesNotMatch(result.stderr, /Cortex:|Set API key/);
    });

    it('a refused key (403) and an unknown model without fallback', async () => {
      server().setHandler(() => error(403, 'Project does not have access to model m.'));
      const ws = tempWorkspace();
      const forbidden = await cli(['run', '--workspace', ws, '--base-url', server().baseUrl, '--model', 'm', 'x']);
      assert.equal(forbidden.code, 3, forbidden.stderr);
      assert.match(forbidden.stderr, /run failed: The endpoint refused access \(403\): Project does not have access to model m\. Check/);
      await server.restart(commandScript(), { models: ['other'] });
      const unknown = await cli(['run', '--workspace', ws, '--base-url', server().baseUrl, '--model', 'missing', 'x']);
      assert.equal(unknown.code, 3, unknown.stderr);
      assert.equal(count(unknown.stderr, "Model 'missing' is not available"), 1, unknown.stderr);
      assert.match(unknown.stderr, /Check --model, or list other models in --fallback-model\.$/m);
    });

    it('not for a planner failure a later run could get past (exit 1)', async () => {
      server().setHandler(() => error(500, 'overloaded', { headers: { 'x-should-retry': 'false' } }));
      const result = await cli(['run', '--workspace', tempWorkspace(), '--base-url', server().baseUrl, '--model', 'm', 'x']);
      assert.equal(result.code, 1, result.stderr);
      assert.equal(count(result.stderr, 'overloaded'), 1, result.stderr);
    });
  });

  it('fails over once: says so in one line, and later requests go straight to the model that worked', async () => {
    await server.restart(commandScript(), { models: ['good'] });
    const ws = tempWorkspace();
    const trace = join(ws, '..', `${Date.now()}-failover.jsonl`);
    const result = await cli([
      'run',
      '--workspace',
      ws,
      '--base-url',
      server().baseUrl,
      '--model',
      'missing',
      '--fallback-model',
      'good',
      '--trace',
      trace,
      '--approve',
      'all',
      'say hi',
    ]);
    assert.equal(result.code, 0, result.stderr);
    const models = server()
      .chatRequests()
      .map((r) => r.body.model);
    assert.ok(models.length >= 5, `a multi-step run: ${models.join(', ')}`);
    assert.equal(models.filter((m) => m === 'missing').length, 1, models.join(', '));
    assert.equal(count(result.stderr, `model missing not found at ${server().baseUrl} — using good`), 1, result.stderr);
    const requests = readTraceSync(trace).events.filter((e) => e.type === 'llm_request');
    assert.deepEqual(
      requests[0].attempts.map((a) => [a.model, a.ok, a.status]),
      [
        ['missing', false, 404],
        ['good', true, undefined],
      ],
    );
    assert.ok(requests.slice(1).every((e) => e.attempts.length === 1 && e.attempts[0].model === 'good'));
  });

  it('prints model and tool text with terminal controls made visible, on stderr and stdout', async () => {
    const ESC = '\u001b';
    server().setHandler(
      route({
        planner: json({ title: `evil${ESC}]0;pwned\u0007 title`, steps: [`Read\r${ESC}[2K the \u202efile`], dependencies: {} }),
        executor: (req) =>
          toolMessages(req).length
            ? error(400, `bad request ${ESC}[31mred`, { headers: { 'x-should-retry': 'false' } })
            : toolCalls(call('read_file', `{"path": "${ESC}[8m`, 'c1'), call('list_directory', { path: '.' }, 'c2')),
        replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {}, reason: `no ${ESC}c way` }),
        aggregator: message(`answer ${ESC}[2J\u0085 done\u2028end`),
      }),
    );
    const ws = tempWorkspace();
    const config = join(ws, '..', `${Date.now()}-cfg.json`);
    writeFileSync(config, JSON.stringify({ 'cortex.repair.toolCallAttempts': 0, 'cortex.llm.maxRetries': 0 }));
    const result = await cli(['run', '--workspace', ws, '--config', config, '--base-url', server().baseUrl, '--model', 'm', 'x']);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /plan: evil\\x1b\]0;pwned\\x07 title/);
    assert.match(result.stderr, /Read\\r\\x1b\[2K the \\u202efile/);
    assert.match(result.stderr, /read_file\(\{"path": "\\x1b\[8m\)/);
    assert.match(result.stderr, /request failed: The endpoint rejected the request \(400\): bad request \\x1b\[31mred\./);
    assert.equal(result.stdout, 'answer \\x1b[2J\\x85 done\\u2028end\n');
  });
});
