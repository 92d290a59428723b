import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CheckRecord } from '../../../src/core/plan/events';
import { addToolCallEvent, startStepEvent, updateToolResultEvent } from '../../../src/core/plan/planOperations';
import type { StepCheck } from '../../../src/core/plan/stepChecks';
import { compileProtectedPaths, DEFAULT_PROTECTED_PATHS } from '../../../src/core/files/protectedPaths';
import { checkPostconditions, type CheckCommandRun } from '../../../src/core/verify/postconditions';
import { examplePlan, sid } from '../plan/planFixtures';

const hash = (c: string) => c.repeat(64);

/** A running step that wrote `written` with write_file and whose command wrote `byCommand` (a recorded change). */
function stepWithWork(written: string, byCommand?: string) {
  const { log } = examplePlan();
  const id = sid(0);
  log.append(startStepEvent(log.state, id));
  log.append(addToolCallEvent(log.state, id, { id: 'w1', name: 'write_file', arguments: { path: written, content: 'x' } }));
  log.append(updateToolResultEvent(log.state, id, 'w1', { status: 'success', result: 'ok' }));
  log.append(addToolCallEvent(log.state, id, { id: 'r1', name: 'read_file', arguments: { path: 'package.json' } }));
  log.append(updateToolResultEvent(log.state, id, 'r1', { status: 'error', result: 'Error: missing' }));
  if (byCommand) {
    log.append(addToolCallEvent(log.state, id, { id: 'c1', name: 'run_command', arguments: { command: 'make' } }));
    log.append({
      type: 'files_changed',
      stepId: id,
      callId: 'c1',
      changes: [{ path: byCommand, kind: 'created', before: null, after: hash('a'), restorable: true }],
    });
    log.append(updateToolResultEvent(log.state, id, 'c1', { status: 'success', result: 'done\n[exit code 0]', exitCode: 0 }));
  }
  return log.state.steps.get(id)!;
}

function workspace(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-post-')));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'a.ts'), 'export function parseDate() {}\n');
  writeFileSync(join(root, '.env'), 'SECRET=1\n');
  return root;
}

async function check(
  checks: StepCheck[],
  options: { root?: string; answer?: string; run?: (command: string) => CheckCommandRun; written?: string; byCommand?: string; unrecorded?: boolean } = {},
) {
  const root = options.root ?? workspace();
  const commands: string[] = [];
  const records = await checkPostconditions(stepWithWork(options.written ?? 'src/a.ts', options.byCommand), checks, {
    workspaceRoot: root,
    answer: options.answer ?? '',
    commandChangesRecorded: !options.unrecorded,
    maxReadFileBytes: 1024 * 1024,
    protectedPaths: compileProtectedPaths(DEFAULT_PROTECTED_PATHS),
    runCommand: async (command) => {
      commands.push(command);
      return options.run ? options.run(command) : { callId: 'v1', ran: true, exitCode: 0, output: 'ok' };
    },
  });
  return { records, commands };
}

const passed = (records: CheckRecord[]) => records.map((r) => r.passed);

describe('postconditions (docs/design.md, “The verifier and how a step ends”)', () => {
  it('changed: a change of this step matching the glob, with its call as evidence', async () => {
    const { records } = await check([{ changed: 'src/*.ts' }, { changed: '*.ts' }, { changed: 'test/**' }, { changed: 'out/*.js' }], { byCommand: 'out/b.js' });
    assert.deepEqual(passed(records), [true, true, false, true]);
    assert.deepEqual(records[0].evidence, { callId: 'w1', path: 'src/a.ts' });
    assert.equal(records[3].evidence?.callId, 'c1');
    assert.equal(typeof records[3].evidence?.changeSeq, 'number');
    assert.match(records[2].detail, /no file matching test\/\*\* was created, modified or deleted by this step/);
  });

  it('changed says when what commands change is not recorded (no checkpoints)', async () => {
    const { records } = await check([{ changed: 'out/*.js' }], { unrecorded: true });
    assert.match(records[0].detail, /no file matching out\/\*\.js was created, modified or deleted by this step$/, 'no command ran: nothing to add');
    const withCommand = await check([{ changed: 'out/*.js' }], { byCommand: 'elsewhere.txt', unrecorded: true });
    assert.match(withCommand.records[0].detail, /this run does not record what commands change, as checkpoints are off/);
  });

  it('exists and absent, after the step, through the workspace jail', async () => {
    const root = workspace();
    symlinkSync('/etc', join(root, 'escape'));
    const { records } = await check(
      [{ exists: 'src/a.ts' }, { exists: 'src/b.ts' }, { absent: 'src/b.ts' }, { absent: 'src/a.ts' }, { exists: 'escape/passwd' }],
      { root },
    );
    assert.deepEqual(passed(records), [true, false, true, false, false]);
    assert.match(records[4].detail, /invalid check: Path 'escape\/passwd' is outside the workspace/);
  });

  it('contains: a literal or a pattern in the file; a protected file is never read', async () => {
    const { records } = await check([
      { contains: 'src/a.ts', text: 'parseDate' },
      { contains: 'src/a.ts', text: 'formatDate' },
      { contains: 'src/a.ts', pattern: '^export function \\w+\\(' },
      { contains: 'src/missing.ts', text: 'x' },
      { contains: '.env', text: 'SECRET' },
    ]);
    assert.deepEqual(passed(records), [true, false, true, false, false]);
    assert.match(records[1].detail, /src\/a\.ts does not contain the text "formatDate"/);
    assert.match(records[4].detail, /protected file/);
  });

  it('called: a successful call of the tool (a failed one does not count)', async () => {
    const { records } = await check([{ called: 'write_file' }, { called: 'read_file' }, { called: 'search_text' }]);
    assert.deepEqual(passed(records), [true, false, false]);
    assert.match(records[1].detail, /every read_file call of this step failed/);
    assert.match(records[2].detail, /this step made no search_text call/);
  });

  it('answer: the final answer matches the pattern', async () => {
    const { records } = await check([{ answer: '\\d+ tests pass' }, { answer: '^FAIL' }], { answer: 'Done: 12 tests pass.' });
    assert.deepEqual(passed(records), [true, false]);
  });

  it('command: run after the other checks, its exit code compared; a denial or a refusal fails it with the reason', async () => {
    const runs: Record<string, CheckCommandRun> = {
      'npm test': { callId: 'v1', ran: true, exitCode: 1, output: '1 failing' },
      'npm run build': { callId: 'v2', ran: true, exitCode: 0, output: 'built' },
      'rm -rf /': { callId: 'v3', ran: false, output: '', reason: 'denied: the user denied it' },
    };
    const { records, commands } = await check(
      [
        { command: 'npm test', exit: 0 },
        { exists: 'src/a.ts' },
        { command: 'npm run build', exit: 0 },
        { command: 'rm -rf /', exit: 0 },
        { command: 'npm test', exit: 1 },
      ],
      { run: (command) => runs[command] },
    );
    assert.deepEqual(commands, ['npm test', 'npm run build', 'rm -rf /', 'npm test']);
    assert.deepEqual(passed(records), [false, true, true, false, true]);
    assert.deepEqual(records[0].evidence, { callId: 'v1', output: '1 failing', exitCode: 1 });
    assert.match(records[0].detail, /it exited 1, not 0/);
    assert.match(records[3].detail, /the command did not run: denied: the user denied it/);
  });
});
