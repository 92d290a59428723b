import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main';
import { readTraceSync } from '../support/traceFile';
import { tempWorkspace } from '../support/agentHarness';
import { call, json, message, route, sequence, toolCalls } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';

// The CLI on a terminal (docs/design.md, “Remembered approvals”): answering `r` approves the
// command for the rest of the run, so the next command with the same prefix runs without a
// question; a command with added shell syntax is asked again. Runs `cortex run` in-process with a
// TTY stdin, against the scripted server.

describe('cortex CLI: approve for this run on a terminal', function () {
  this.timeout(30_000);
  const server = useScriptedServer();

  it('"r" lets the next same-prefix command run unasked; a shell line is asked and denied', async () => {
    server().setHandler(
      route({
        planner: json({ title: 'files', steps: ['Create the files'], dependencies: {} }),
        executor: sequence(
          toolCalls(call('run_command', { command: 'touch one.txt' })),
          toolCalls(call('run_command', { command: 'touch two.txt' })),
          toolCalls(call('run_command', { command: 'touch three.txt; touch four.txt' })),
          message('created one.txt and two.txt'),
        ),
        aggregator: message('Done.'),
      }),
    );
    const ws = tempWorkspace();
    const trace = join(ws, '..', `${Date.now()}-remembered.jsonl`);
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let shown = '';
    stderr.on('data', (d) => (shown += d));
    stdout.resume();
    let answered = 0;
    const answers = ['r', 'n'];
    // Answer each question once it is on the terminal.
    const timer = setInterval(() => {
      const asked = shown.split('Approve?').length - 1;
      if (asked > answered && answered < answers.length) stdin.write(`${answers[answered++]}\n`);
    }, 20);
    const code = await main(['run', '--workspace', ws, '--base-url', server().baseUrl, '--model', 'm', '--trace', trace, 'create the files'], {
      stdout,
      stderr,
      stdin,
      cwd: process.cwd(),
      env: {},
    }).finally(() => clearInterval(timer));
    assert.equal(code, 0, shown);
    assert.equal(shown.split('Approve?').length - 1, 2, `two questions, not three:\n${shown}`);
    assert.match(shown, /\[r\] yes for this run, also run_command `touch …`/);
    assert.equal(existsSync(join(ws, 'one.txt')), true);
    assert.equal(existsSync(join(ws, 'two.txt')), true, 'the same-prefix command ran unasked');
    assert.equal(existsSync(join(ws, 'three.txt')), false);
    const events = readTraceSync(trace).events;
    const recorded = events.flatMap((e) => (e.type === 'approval_answered' ? [[e.source, e.decision, e.scope ?? null]] : []));
    assert.deepEqual(recorded, [
      ['cli-tty', 'approve', 'run'],
      ['remembered', 'approve', 'run'],
      ['cli-tty', 'deny', null],
    ]);
  });
});
