import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main';
import { probeSandbox } from '../../src/core/sandbox/bubblewrap';
import { readTraceSync } from '../support/traceFile';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';

// The run's trace, lock and checkpoint folder are what revert and resume trust later, so the run's
// own tools cannot write them (docs/design.md, “Checkpoints and revert”): with `--trace` inside the
// workspace, the model's write_file to each is denied under --approve none, the trace stays intact,
// and the CLI warns once. A command a person approved cannot write them either while the sandbox
// runs it: they are mounted read-only over the workspace's writable bind.

async function cli(argv: string[], cwd: string) {
  const collect = () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (d) => (text += d));
    return { stream, text: () => text };
  };
  const stdout = collect();
  const stderr = collect();
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const code = await main(argv, { stdout: stdout.stream, stderr: stderr.stream, stdin, cwd, env: process.env });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe('the run cannot write its own trace, lock or checkpoints', function () {
  this.timeout(60_000);
  const server = useScriptedServer();

  it('write_file and edit_file to the live trace, its lock and the checkpoint folder are denied under --approve none; the trace is intact', async () => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-runfiles-')));
    mkdirSync(join(ws, 'src'));
    const forged = '{"seq":0,"time":1,"type":"run_started","runId":"forged","task":"t","workspace":"/","model":"m","baseUrl":"http://x/v1"}\n';
    server().setHandler(
      route({
        planner: json({ title: 'Forge', steps: ['Forge the trace'], dependencies: {} }),
        executor: (req) =>
          toolMessages(req).length > 0
            ? message('tried')
            : toolCalls(
                call('write_file', { path: 'run.jsonl', content: forged }),
                call('edit_file', { path: 'run.jsonl', old_text: '"type"', new_text: '"typo"' }),
                call('write_file', { path: 'RUN.JSONL.lock', content: '{}' }),
                call('write_file', { path: 'run.jsonl.checkpoints/objects/aa/bb', content: 'x' }),
                call('write_file', { path: 'src/ok.txt', content: 'an ordinary file\n' }),
              ),
        aggregator: message('done'),
      }),
    );
    // The natural thing to type, from the project folder.
    const ran = await cli(['run', '--base-url', server().baseUrl, '--model', 'm', '--trace', 'run.jsonl', '--approve', 'none', 'forge it'], ws);
    assert.equal(ran.stderr.match(/warning: .*run\.jsonl.* inside the workspace/g)?.length, 1, ran.stderr);

    const { events } = readTraceSync(join(ws, 'run.jsonl'));
    const started = events[0];
    assert.ok(started.type === 'run_started' && started.runId !== 'forged' && started.workspace === ws);
    assert.ok(events.some((e) => e.type === 'run_finished'));
    const results = new Map(events.flatMap((e) => (e.type === 'tool_call_completed' ? [[e.callId, e]] : [])));
    const requested = events.flatMap((e) => (e.type === 'tool_call_requested' ? [e] : []));
    const outcome = (path: string, tool = 'write_file') => {
      const request = requested.find((e) => e.call.name === tool && JSON.stringify(e.call.arguments).includes(path))!;
      const done = results.get(request.call.id)!;
      return `${done.status} ${done.reason ?? ''}`.trim();
    };
    for (const path of ['run.jsonl', 'RUN.JSONL.lock', 'run.jsonl.checkpoints/objects/aa/bb']) assert.match(outcome(path), /^rejected approval_denied$/, path);
    assert.match(outcome('run.jsonl', 'edit_file'), /^rejected approval_denied$/);
    assert.equal(outcome('src/ok.txt'), 'success', 'an ordinary write needs no approval');
    assert.equal(readFileSync(join(ws, 'src/ok.txt'), 'utf8'), 'an ordinary file\n');
    assert.equal(existsSync(join(ws, 'run.jsonl.checkpoints/objects/aa')), false);
    assert.equal(existsSync(join(ws, 'run.jsonl.lock')), false, 'the lock was released, never written by the model');
  });

  it('an approved run_command in the sandbox cannot append to the trace, its lock or the checkpoint folder; revert still trusts only the real trace', async () => {
    const probe = await probeSandbox();
    if (!probe.available) throw new Error(`this test needs a working bubblewrap (Debian/Ubuntu package "bubblewrap"): ${probe.reason}`);
    const ws = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-runfiles-sandbox-')));
    const forged = '{"seq":99,"time":1,"type":"run_started","runId":"forged","task":"t","workspace":"/","model":"m","baseUrl":"http://x/v1"}';
    const attempts = [
      `echo '${forged}' >> run.jsonl`,
      'echo x >> run.jsonl.lock',
      'touch run.jsonl.checkpoints/forged',
      'rm -rf run.jsonl.checkpoints/objects',
      'echo made > made.txt',
    ];
    server().setHandler(
      route({
        planner: json({ title: 'Forge', steps: ['Forge the trace with commands'], dependencies: {} }),
        executor: (req) => {
          const messages: Array<{ role: string }> = Array.isArray(req.body?.messages) ? req.body.messages : [];
          const done = messages.filter((m) => m.role === 'tool').length;
          return done < attempts.length ? toolCalls(call('run_command', { command: attempts[done] })) : message('tried');
        },
        aggregator: message('done'),
      }),
    );
    const ran = await cli(['run', '--base-url', server().baseUrl, '--model', 'm', '--trace', 'run.jsonl', '--approve', 'all', 'forge it'], ws);
    assert.equal(ran.code, 0, ran.stderr);

    const { events } = readTraceSync(join(ws, 'run.jsonl'));
    assert.ok(events[0]?.type === 'run_started' && events[0].runId !== 'forged' && events[0].workspace === ws);
    assert.ok(!readFileSync(join(ws, 'run.jsonl'), 'utf8').includes('"forged"'), 'the forged line reached the trace');
    const outputs = events.flatMap((e) => (e.type === 'tool_call_completed' ? [`${e.status} ${JSON.stringify(e)}`] : []));
    assert.equal(outputs.length, attempts.length);
    for (const output of outputs.slice(0, 4)) assert.match(output, /^error .*Read-only file system/, output);
    assert.match(outputs[4], /^success /, 'an ordinary command still writes the workspace');
    assert.equal(readFileSync(join(ws, 'made.txt'), 'utf8'), 'made\n');
    assert.ok(!existsSync(join(ws, 'run.jsonl.checkpoints/forged')));
    assert.ok(readdirSync(join(ws, 'run.jsonl.checkpoints')).length > 0, 'the checkpoints were kept');

    // The untouched trace and checkpoints still revert the run: made.txt goes away.
    const reverted = await cli(['revert', '--trace', 'run.jsonl'], ws);
    assert.equal(reverted.code, 0, reverted.stderr + reverted.stdout);
    assert.ok(!existsSync(join(ws, 'made.txt')), reverted.stdout);
  });
});
