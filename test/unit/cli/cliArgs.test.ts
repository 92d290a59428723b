import assert from 'node:assert/strict';
import { parseCliArgs, USAGE, UsageError } from '../../../src/cli/cliArgs';
import { parseResumeArgs } from '../../../src/cli/cliResume';
import { parseRetryStepArgs } from '../../../src/cli/cliRetryStep';

describe('cli arguments', () => {
  it('parses the documented contract', () => {
    const args = parseCliArgs(
      [
        'run',
        '--workspace',
        'ws',
        '--config',
        'c.json',
        '--base-url',
        'http://127.0.0.1:1/v1',
        '--model',
        'm',
        '--fallback-model',
        'a',
        '--fallback-model',
        'b',
        '--trace',
        't.jsonl',
        '--approve',
        'all',
        'do it',
      ],
      '/cwd',
    );
    assert.deepEqual(args, {
      command: 'run',
      task: 'do it',
      workspace: 'ws',
      configFile: 'c.json',
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'm',
      fallbackModels: ['a', 'b'],
      trace: 't.jsonl',
      approve: 'all',
      help: false,
    });
  });
  it('--require-verified (cortex run and cortex resume) takes no value', () => {
    assert.equal(parseCliArgs(['run', '--require-verified', 'task'], '/').requireVerified, true);
    assert.equal('requireVerified' in parseCliArgs(['run', 'task'], '/'), false);
    assert.equal(parseResumeArgs(['resume', '--trace', 't', '--require-verified']).requireVerified, true);
    assert.throws(() => parseCliArgs(['run', '--require-verified=no', 'task'], '/'), /--require-verified takes no value/);
  });
  it('cortex resume and cortex retry-step read the shared run options alike, and each only its own', () => {
    const shared = [
      '--trace',
      't.jsonl',
      '--model',
      'm',
      '--fallback-model',
      'a',
      '--fallback-model',
      'b',
      '--header',
      'X-A: 1',
      '--approve',
      'none',
      '--checkpoints',
      'cp',
    ];
    const resume = parseResumeArgs(['resume', ...shared, '--allow-protected', './.env']);
    const retry = parseRetryStepArgs(['retry-step', ...shared, '--step', 's2', '--new-trace', 'n.jsonl']);
    for (const args of [resume, retry]) {
      assert.equal(args.trace, 't.jsonl');
      assert.deepEqual(args.fallbackModels, ['a', 'b']);
      assert.deepEqual(args.headers, ['X-A: 1']);
      assert.equal(args.approve, 'none');
      assert.equal(args.checkpoints, 'cp');
    }
    assert.deepEqual(resume.allowProtected, ['.env']);
    assert.equal(retry.step, 's2');
    assert.equal(retry.newTrace, 'n.jsonl');
    assert.throws(() => parseResumeArgs(['resume', '--trace', 't', '--step', 's2']), /unknown option --step for cortex resume/);
    assert.throws(
      () => parseRetryStepArgs(['retry-step', '--trace', 't', '--step', 's2', '--allow-protected', 'x']),
      /unknown option --allow-protected for cortex retry-step/,
    );
    assert.equal(parseRetryStepArgs(['retry-step', '--trace', 't', '--step', 's2', '--approve', 'plan']).approve, 'plan');
    assert.throws(() => parseResumeArgs(['resume', '--trace', 't', '--approve', 'some']), /--approve must be "all", "none" or "plan", not "some"/);
    assert.throws(() => parseRetryStepArgs(['retry-step', '--trace', 't']), /missing --step ID/);
  });
  it('defaults the workspace to the current directory', () => {
    assert.equal(parseCliArgs(['run', 'task'], '/here').workspace, '/here');
  });
  it('accepts --opt=value, a value starting with "-" written that way, and a task after --', () => {
    const args = parseCliArgs(['run', '--model=-odd-', '--', '--task-like'], '/');
    assert.equal(args.model, '-odd-');
    assert.equal(args.task, '--task-like');
    assert.equal(parseCliArgs(['-h'], '/').help, true);
  });
  for (const [argv, message] of [
    [[], 'missing command: cortex run "TASK"'],
    [['walk', 'x'], 'unknown command "walk" (expected "run", "plan", "resume", "retry-step", "diff" or "revert")'],
    [['run'], 'missing task: cortex run "TASK"'],
    [['run', 'a', 'b'], 'give the task as one quoted argument'],
    [['run', '--approve', 'some', 'x'], '--approve must be "all", "none" or "plan", not "some"'],
    [['run', '--bogus', 'x'], 'unknown option --bogus'],
    [['run', '-x', 'task'], 'unknown option -x'],
    [['run', 'x', '--model'], '--model needs a value'],
    [['run', '--model=', 'x'], '--model needs a value'],
    [['run', '--model', '--trace', 't', 'x'], '--model needs a value, not the option --trace (write --model=--trace if you mean it)'],
    [['run', '--help=yes'], '--help takes no value'],
  ] as const) {
    it(`rejects ${JSON.stringify(argv)} in Cortex's own words`, () => {
      assert.throws(
        () => parseCliArgs([...argv], '/'),
        (error: Error) => {
          assert.ok(error instanceof UsageError);
          assert.equal(error.message, message);
          assert.equal(error.pointToHelp, true);
          return true;
        },
      );
    });
  }
  it('documents every exit code, 3 included', () => {
    for (const code of ['0', '1', '2', '3']) assert.match(USAGE, new RegExp(`^  ${code}  \\S`, 'm'), code);
    assert.match(USAGE, /unreachable.*\n.*401\/403.*model not found/);
  });
});
