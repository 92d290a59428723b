import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { approvalPrompt, attachCliApprovals } from '../../../src/cli/cliApprovals';
import { approvalRun } from '../policy/approvalFixtures';
import { ApprovalMemory } from '../../../src/core/policy/approvalMemory';
import { fakeTerminal } from '../../support/fakeTerminal';

// A command that, printed raw, would return the cursor, erase the line and conceal what follows:
// the person would approve something they never saw.
const HIDING_COMMAND = 'touch x #\r\u001b[2K\u001b[8m';

/** Any character a terminal acts on instead of showing (newline and tab are fine). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

describe('CLI approvals on a terminal', () => {
  it('the prompt shows every byte of a command that tries to hide itself', () => {
    const prompt = approvalPrompt({
      requestId: 'r',
      stepId: 's1',
      callId: 'c1',
      toolName: 'run_command',
      argumentsJson: JSON.stringify({ command: HIDING_COMMAND }),
      argsHash: 'h',
      required: false,
      denyEffect: 'continue',
      reason: 'runs a \u202eshell command',
    });
    assert.ok(prompt.includes('`touch x #\\r\\x1b[2K\\x1b[8m`'), prompt);
    assert.ok(prompt.includes('reason: runs a \\u202eshell command'), prompt);
    assert.doesNotMatch(prompt, RAW_CONTROL);
  });

  it('asks on a TTY with the terminal-safe prompt and applies the answer', async () => {
    const run = approvalRun();
    const terminal = fakeTerminal();
    const { input, output } = terminal;
    const detach = attachCliApprovals(run.broker, undefined, { input, output });
    const { outcome } = run.ask('c1', { argumentsJson: JSON.stringify({ command: HIDING_COMMAND }), reason: 'needs confirmation' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    input.write('n\n');
    const result = await outcome;
    detach();
    assert.equal(result.decision, 'deny');
    assert.ok(terminal.shown().includes('touch x #\\r\\x1b[2K\\x1b[8m'), JSON.stringify(terminal.shown()));
    assert.ok(!terminal.shown().includes(HIDING_COMMAND), 'the raw command never reaches the terminal');
    const answered = run.log.events.filter((event) => event.type === 'approval_answered');
    assert.deepEqual(
      answered.map((event) => event.type === 'approval_answered' && [event.decision, event.source]),
      [['deny', 'cli-tty']],
    );
  });

  it('"r" approves for this run: a later call with the same command prefix runs unasked, shell syntax is still asked', async () => {
    const run = approvalRun({ memory: new ApprovalMemory() });
    const terminal = fakeTerminal();
    const { input, output } = terminal;
    const detach = attachCliApprovals(run.broker, undefined, { input, output });
    const rememberable = (text: string) => ({
      argumentsJson: JSON.stringify({ command: text }),
      rememberable: { command: { text, handoffs: [], errors: [] } },
    });
    const first = run.ask('c1', rememberable('npm test'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(terminal.shown().includes('[r] yes for this run, also run_command `npm test …`'), JSON.stringify(terminal.shown()));
    input.write('r\n');
    assert.equal((await first.outcome).decision, 'approve');
    const second = await run.ask('c2', rememberable('npm test src')).outcome;
    assert.deepEqual(second, { decision: 'approve', source: 'remembered' });
    const third = run.ask('c3', rememberable('npm test; rm -rf src'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const lastPrompt = terminal.shown().slice(terminal.shown().lastIndexOf('[cortex]'));
    assert.ok(lastPrompt.includes('`npm test; rm -rf src`') && lastPrompt.includes('Approve? [y/N] '), JSON.stringify(lastPrompt));
    input.write('n\n');
    assert.equal((await third.outcome).decision, 'deny');
    detach();
    const answered = run.log.events.flatMap((event) => (event.type === 'approval_answered' ? [[event.callId, event.source, event.scope]] : []));
    assert.deepEqual(answered, [
      ['c1', 'cli-tty', 'run'],
      ['c2', 'remembered', 'run'],
      ['c3', 'cli-tty', undefined],
    ]);
  });

  it('--approve all|none and a missing terminal answer at once, each recorded with who answered', async () => {
    for (const [mode, isTTY, decision, source] of [
      ['all', false, 'approve', 'cli --approve all'],
      ['none', true, 'deny', 'cli --approve none'],
      [undefined, false, 'deny', 'cli no-tty'],
    ] as const) {
      const run = approvalRun();
      const detach = attachCliApprovals(run.broker, mode, { input: Object.assign(new PassThrough(), { isTTY }), output: new PassThrough() });
      const result = await run.ask('c1').outcome;
      detach();
      assert.equal(result.decision, decision, String(mode));
      const types = run.log.events.map((event) => event.type).slice(-2);
      assert.deepEqual(types, ['tool_call_awaiting_approval', 'approval_answered'], 'the request is recorded before its answer');
      const last = run.log.events.at(-1)!;
      assert.equal(last.type === 'approval_answered' && last.source, source);
    }
  });
});
