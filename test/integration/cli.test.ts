import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main';
import { readTrace } from '../../src/core/trace/traceReader';
import { tempWorkspace } from '../support/agentHarness';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';

function collect() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d) => (text += d));
  return { stream, text: () => text };
}

async function cli(argv: string[], env: Record<string, string> = {}) {
  const stdout = collect();
  const stderr = collect();
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const code = await main(argv, { stdout: stdout.stream as any, stderr: stderr.stream as any, stdin: stdin as any, cwd: process.cwd(), env });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const commandScript = () =>
  route({
    planner: json({ title: 'cmd', steps: ['Run echo', 'Summarise'], dependencies: { '1': [0] } }),
    executor: (req) => (JSON.stringify(req.body.messages).includes('Summarise') ? message('summary') : toolMessages(req).length ? message('ran') : toolCalls(call('run_command', { command: 'echo hi > hi.txt' }))),
    aggregator: message('All done.'),
  });

describe('cortex CLI', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await startScriptedServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('exit 0, answer on stdout, trace file ending with run_finished, --approve all answers confirmations', async () => {
    server.setHandler(commandScript());
    const ws = tempWorkspace();
    const trace = join(ws, '..', `${Date.now()}-trace.jsonl`);
    const result = await cli(['run', '--workspace', ws, '--base-url', server.baseUrl, '--model', 'm', '--trace', trace, '--approve', 'all', 'say hi']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'All done.');
    assert.equal(readFileSync(join(ws, 'hi.txt'), 'utf8').trim(), 'hi');
    const { events } = readTrace(trace);
    assert.equal(events.at(-1)!.type, 'run_finished');
    assert.match(result.stderr, /awaiting approval/);
  });

  it('--approve none denies, and without a TTY confirmations are denied; exit 1 when steps are blocked', async () => {
    server.setHandler(commandScript());
    const ws = tempWorkspace();
    const config = join(ws, '..', `${Date.now()}-cfg.json`);
    writeFileSync(config, JSON.stringify({ 'cortex.llm.baseUrl': server.baseUrl, 'cortex.llm.model': 'm', 'cortex.policy.tools': { run_command: 'confirm-required' } }));
    const denied = await cli(['run', '--workspace', ws, '--config', config, '--approve', 'none', 'say hi']);
    assert.equal(denied.code, 1);
    assert.equal(existsSync(join(ws, 'hi.txt')), false);
    const noTty = await cli(['run', '--workspace', ws, '--config', config, 'say hi']);
    assert.equal(noTty.code, 1);
    assert.equal(existsSync(join(ws, 'hi.txt')), false);
  });

  it('exit 2 with one clear line for a bad config value, a missing workspace, or bad JSON', async () => {
    const ws = tempWorkspace();
    const bad = join(ws, 'bad.json');
    writeFileSync(bad, JSON.stringify({ 'cortex.execution.maxParallelSteps': 0 }));
    const r1 = await cli(['run', '--workspace', ws, '--config', bad, 'x']);
    assert.equal(r1.code, 2);
    assert.match(r1.stderr, /cortex\.execution\.maxParallelSteps/);
    const r2 = await cli(['run', '--workspace', join(ws, 'nope'), 'x']);
    assert.equal(r2.code, 2);
    assert.match(r2.stderr, /not a directory/);
    writeFileSync(bad, '{nope');
    const r3 = await cli(['run', '--workspace', ws, '--config', bad, 'x']);
    assert.equal(r3.code, 2);
    assert.match(r3.stderr, /not valid JSON/);
    for (const r of [r1, r2, r3]) assert.doesNotMatch(r.stderr, /\n\s+at /);
  });

  it('exit 1 and a clear line (no stack) when the endpoint is unreachable, as a real process', async () => {
    await server.close();
    const ws = tempWorkspace();
    const child = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', '--workspace', ws, '--base-url', server.baseUrl, '--model', 'm', 'x'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(child.status, 1, child.stderr);
    assert.match(child.stderr, /Cannot reach|ECONNREFUSED|reach/i);
    assert.doesNotMatch(child.stderr, /\n\s+at /);
    server = await startScriptedServer();
  });
});
