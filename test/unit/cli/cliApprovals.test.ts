import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { approvalPrompt, attachCliApprovals } from '../../../src/cli/cliApprovals';
import { ApprovalBroker } from '../../../src/core/policy/approvalBroker';

// A command that, printed raw, would return the cursor, erase the line and conceal what follows:
// the person would approve something they never saw.
const HIDING_COMMAND = 'touch x #\r\u001b[2K\u001b[8m';

/** Any character a terminal acts on instead of showing (newline and tab are fine). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

describe('CLI approvals on a terminal', () => {
  it('the prompt shows every byte of a command that tries to hide itself', () => {
    const prompt = approvalPrompt({ requestId: 'r', stepId: 's1', callId: 'c1', toolName: 'run_command', argumentsJson: JSON.stringify({ command: HIDING_COMMAND }), argsHash: 'h', required: false, denyEffect: 'continue', reason: 'runs a \u202eshell command' });
    assert.ok(prompt.includes('`touch x #\\r\\x1b[2K\\x1b[8m`'), prompt);
    assert.ok(prompt.includes('reason: runs a \\u202eshell command'), prompt);
    assert.doesNotMatch(prompt, RAW_CONTROL);
  });

  it('asks on a TTY with the terminal-safe prompt and applies the answer', async () => {
    const broker = new ApprovalBroker();
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const output = new PassThrough();
    let shown = '';
    output.on('data', (d) => (shown += d));
    const detach = attachCliApprovals(broker, undefined, { input, output });
    const { outcome } = broker.request({ stepId: 's1', callId: 'c1', toolName: 'run_command', argumentsJson: JSON.stringify({ command: HIDING_COMMAND }), required: false, denyEffect: 'continue', reason: 'needs confirmation' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    input.write('n\n');
    const result = await outcome;
    detach();
    assert.equal(result.decision, 'deny');
    assert.ok(shown.includes('touch x #\\r\\x1b[2K\\x1b[8m'), JSON.stringify(shown));
    assert.ok(!shown.includes(HIDING_COMMAND), 'the raw command never reaches the terminal');
  });
});
