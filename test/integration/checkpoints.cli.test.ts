import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { hashBytes } from '../../src/core/checkpoints/contentStore';
import { main } from '../../src/cli/main';
import type { EventOf, RunEvent } from '../../src/core/plan/events';
import { readTraceSync } from '../support/traceFile';
import { byStep, call, json, message, route, toolCalls } from '../support/scriptedReplies';
import { userGitRepository } from '../support/userGitRepository';
import { useScriptedServer } from '../support/useScriptedServer';

// Every change reviewable and reversible, through the CLI (docs/design.md, “Checkpoints and revert”): real runs against
// the scripted endpoint write, edit, delete and create files with the file tools and commands;
// `cortex diff` shows them and `cortex revert` puts them back, with conflicts and undo.

async function cli(argv: string[]) {
  const collect = () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (d) => (text += d));
    return { stream, text: () => text };
  };
  const stdout = collect();
  const stderr = collect();
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const code = await main(argv, { stdout: stdout.stream, stderr: stderr.stream, stdin: stdin, cwd: process.cwd(), env: process.env });
  const result = { code, stdout: stdout.text(), stderr: stderr.text() };
  assert.doesNotMatch(result.stderr, /\n\s+at /, `stack trace in:\n${result.stderr}`);
  return result;
}

/** A fresh folder holding the workspace `ws` and, beside it (outside the workspace), the trace. */
function setup(): { base: string; ws: string; trace: string } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-cp-')));
  const ws = join(base, 'ws');
  mkdirSync(ws);
  return { base, ws, trace: join(base, 'run.jsonl') };
}

const read = (ws: string, file: string) => readFileSync(join(ws, file), 'utf8');
const eventsOf = <T extends RunEvent['type']>(trace: string, type: T) => readTraceSync(trace).events.filter((e): e is EventOf<T> => e.type === type);
const listFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();

/** Three steps: s1 writes two files; s2 edits one and runs a command that deletes and creates; s3 summarises. */
const fileScript = () =>
  route({
    planner: json({
      title: 'Files',
      steps: ['Write the files', 'Edit and clean up', 'Summarise everything that was done'],
      dependencies: { '1': [0], '2': [1] },
    }),
    executor: byStep({
      'Write the files': [
        toolCalls(call('write_file', { path: 'a.txt', content: 'one\ntwo\n' }), call('write_file', { path: 'docs/b.txt', content: 'bee\n' })),
        message('written'),
      ],
      'Edit and clean up': [
        toolCalls(call('edit_file', { path: 'a.txt', old_text: 'two', new_text: 'TWO' })),
        toolCalls(call('run_command', { command: 'rm old.txt && echo made > made.txt' })),
        message('cleaned'),
      ],
      'Summarise everything that was done': [message('summary')],
    }),
    aggregator: message('All done.'),
  });

describe('checkpoints through the CLI: cortex diff and cortex revert', function () {
  this.timeout(60_000);
  const server = useScriptedServer();

  const run = (ws: string, trace: string, extra: string[] = []) =>
    cli(['run', '--workspace', ws, '--base-url', server().baseUrl, '--model', 'm', '--trace', trace, '--approve', 'all', ...extra, 'do it']);

  it('records writes, edits, a deletion and a creation by a command; diff shows them; revert of a step, undo, conflicts and --force', async () => {
    server().setHandler(fileScript());
    const { ws, trace } = setup();
    writeFileSync(join(ws, 'old.txt'), 'to delete\n');
    const ran = await run(ws, trace);
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(read(ws, 'a.txt'), 'one\nTWO\n');
    assert.equal(existsSync(join(ws, 'old.txt')), false);
    assert.equal(read(ws, 'made.txt'), 'made\n');

    // The trace says which step and call changed what.
    const changed = eventsOf(trace, 'files_changed');
    const byPath = (stepId: string) =>
      changed.filter((e) => e.stepId === stepId).flatMap((e) => e.changes.map((c) => `${c.kind} ${c.path}${c.directory ? '/' : ''}`));
    assert.deepEqual(byPath('s1'), ['created a.txt', 'created docs/', 'created docs/b.txt']);
    assert.deepEqual(byPath('s2'), ['modified a.txt', 'created made.txt', 'deleted old.txt']);
    const edit = changed.find((e) => e.stepId === 's2' && e.changes.some((c) => c.kind === 'modified'))!.changes[0];
    assert.deepEqual([edit.before, edit.after, edit.added, edit.removed], [hashBytes(Buffer.from('one\ntwo\n')), hashBytes(Buffer.from('one\nTWO\n')), 1, 1]);
    // Nothing was written inside the workspace but the run's own work; the checkpoints are beside the trace.
    assert.deepEqual(listFiles(ws), ['a.txt', 'docs/b.txt', 'made.txt']);
    assert.ok(existsSync(`${trace}.checkpoints`));

    const whole = await cli(['diff', '--workspace', ws, '--trace', trace]);
    assert.equal(whole.code, 0, whole.stderr);
    assert.ok(whole.stdout.includes('--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+one\n+TWO\n'), whole.stdout);
    assert.ok(whole.stdout.includes('--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-to delete\n'), whole.stdout);
    assert.match(whole.stderr, /run: 4 files changed \(\+4 −1\)/);
    const step = await cli(['diff', '--workspace', ws, '--trace', trace, '--step', 's2']);
    assert.ok(step.stdout.includes('--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n'), step.stdout);
    assert.doesNotMatch(step.stdout, /b\.txt/);
    assert.equal((await cli(['diff', '--workspace', ws, '--trace', trace, '--step', 's9'])).code, 2);

    // Revert s2 (and s3 after it): the edit, the deletion and the creation are undone; s1's work stays.
    const reverted = await cli(['revert', '--workspace', ws, '--trace', trace, '--step', 's2']);
    assert.equal(reverted.code, 0, reverted.stdout + reverted.stderr);
    assert.equal(read(ws, 'a.txt'), 'one\ntwo\n');
    assert.equal(read(ws, 'old.txt'), 'to delete\n');
    assert.equal(existsSync(join(ws, 'made.txt')), false);
    assert.equal(read(ws, 'docs/b.txt'), 'bee\n');
    const [revertEvent] = eventsOf(trace, 'files_reverted');
    assert.deepEqual([revertEvent.reason, revertEvent.stepIds, revertEvent.conflicts], ['user', ['s2', 's3'], []]);
    assert.equal(readTraceSync(trace).warnings.length, 0, 'a trace with a revert after run_finished reads without warnings');

    // Undo the revert.
    const undone = await cli(['revert', '--workspace', ws, '--trace', trace, '--undo']);
    assert.equal(undone.code, 0, undone.stdout + undone.stderr);
    assert.equal(read(ws, 'a.txt'), 'one\nTWO\n');
    assert.equal(existsSync(join(ws, 'old.txt')), false);
    assert.equal(read(ws, 'made.txt'), 'made\n');
    assert.equal((await cli(['revert', '--workspace', ws, '--trace', trace, '--undo'])).code, 1, 'nothing left to undo');

    // Someone edits a file the run wrote: reverting the run leaves it alone (exit 1) until --force.
    writeFileSync(join(ws, 'docs', 'b.txt'), 'edited by hand\n');
    const conflict = await cli(['revert', '--workspace', ws, '--trace', trace]);
    assert.equal(conflict.code, 1);
    assert.match(conflict.stdout, /left alone: docs\/b\.txt — it was changed after the run/);
    assert.equal(read(ws, 'docs/b.txt'), 'edited by hand\n');
    assert.equal(existsSync(join(ws, 'a.txt')), false, 'the other files were reverted');
    assert.equal(read(ws, 'old.txt'), 'to delete\n');
    const forced = await cli(['revert', '--workspace', ws, '--trace', trace, '--force']);
    assert.equal(forced.code, 0, forced.stdout);
    assert.deepEqual(listFiles(ws), ['old.txt'], 'the workspace is as before the run');
  });

  it('a git repository: its HEAD, index, stash, config and status are the same after a run, a revert and an undo', async () => {
    server().setHandler(fileScript());
    const { ws, trace } = setup();
    const { state: snapshot } = userGitRepository(ws, 'old.txt');
    const before = snapshot();
    assert.equal((await run(ws, trace)).code, 0);
    const afterRun = snapshot();
    assert.deepEqual({ ...afterRun, status: '' }, { ...before, status: '' }, 'history, index, stash and config untouched by the run');
    assert.deepEqual(afterRun.status.split('\n').filter(Boolean).sort(), [' D old.txt', '?? a.txt', '?? docs/', '?? made.txt', 'A  staged.txt'].sort());
    assert.equal((await cli(['revert', '--workspace', ws, '--trace', trace])).code, 0);
    assert.deepEqual(snapshot(), before, 'after the revert the repository is exactly as before the run');
    assert.equal((await cli(['revert', '--workspace', ws, '--trace', trace, '--undo'])).code, 0);
    assert.deepEqual({ ...snapshot(), status: '' }, { ...before, status: '' });
  });

  it('replanning puts back what the failed step changed before the redesigned subgraph starts (reason replan)', async () => {
    const cutOff = { kind: 'message' as const, toolCalls: [{ name: 'write_file', arguments: '{"path":"api.py","content":"def h' }], finishReason: 'length' };
    server().setHandler(
      route({
        planner: json({ title: 'API', steps: ['Write api.py endpoints', 'Write tests'], dependencies: { '1': [0] } }),
        executor: byStep({
          'Write api.py endpoints': [
            toolCalls(call('write_file', { path: 'draft.txt', content: 'half done\n' })),
            toolCalls(call('edit_file', { path: 'keep.txt', old_text: 'kept', new_text: 'mangled' })),
            cutOff,
          ],
          'Write a small api.py': [toolCalls(call('write_file', { path: 'api.py', content: 'ok\n' })), message('written')],
        }),
        replanner: json({ action: 'redesign', new_steps: ['Write a small api.py'], new_dependencies: {} }),
        aggregator: message('done'),
      }),
    );
    const { ws, trace } = setup();
    writeFileSync(join(ws, 'keep.txt'), 'kept\n');
    const ran = await run(ws, trace);
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(existsSync(join(ws, 'draft.txt')), false, "the failed step's new file is gone");
    assert.equal(read(ws, 'keep.txt'), 'kept\n', "the failed step's edit is undone");
    assert.equal(read(ws, 'api.py'), 'ok\n');
    const { events } = readTraceSync(trace);
    const revertAt = events.findIndex((e) => e.type === 'files_reverted');
    const replaced = events.findIndex((e) => e.type === 'subgraph_replaced');
    assert.ok(revertAt > 0 && revertAt < replaced, 'reverted before the redesign is recorded, so before any new step starts');
    const revert = events[revertAt] as EventOf<'files_reverted'>;
    assert.equal(revert.reason, 'replan');
    assert.deepEqual(revert.stepIds, ['s1', 's2']);
    assert.deepEqual(revert.files.map((f) => f.path).sort(), ['draft.txt', 'keep.txt']);
    // The replaced step's diff marks its changes as reverted; the run's diff leaves them out.
    assert.match((await cli(['diff', '--workspace', ws, '--trace', trace, '--step', 's1'])).stdout, /# reverted \(replan\): draft\.txt/);
    assert.doesNotMatch((await cli(['diff', '--workspace', ws, '--trace', trace])).stdout, /draft\.txt|keep\.txt/);
  });

  it("without git, a command's modification is recorded as not restorable: revert says so, and still removes what it created", async () => {
    server().setHandler(
      route({
        planner: json({ title: 'Cmd', steps: ['Run it'], dependencies: {} }),
        executor: byStep({ 'Run it': [toolCalls(call('run_command', { command: 'echo changed > old.txt; echo new > new.txt' })), message('ran')] }),
        aggregator: message('done'),
      }),
    );
    const { base, ws, trace } = setup();
    writeFileSync(join(ws, 'old.txt'), 'old\n');
    // A PATH with a shell but without git.
    const bin = join(base, 'bin');
    mkdirSync(bin);
    symlinkSync('/bin/sh', join(bin, 'sh'));
    const path = process.env.PATH;
    process.env.PATH = bin;
    let ran;
    try {
      ran = await run(ws, trace, ['--config', writeConfig(base, { 'cortex.sandbox.mode': 'off' })]);
    } finally {
      process.env.PATH = path;
    }
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stderr, /git is not installed/);
    const changes = eventsOf(trace, 'files_changed').flatMap((e) => e.changes);
    assert.deepEqual(
      changes.map((c) => `${c.kind} ${c.path} ${c.restorable}`),
      ['created new.txt true', 'modified old.txt false'],
    );
    const reverted = await cli(['revert', '--workspace', ws, '--trace', trace]);
    assert.equal(reverted.code, 1);
    assert.match(reverted.stdout, /left alone: old\.txt — git is not installed, so the content before the command was not saved/);
    assert.equal(existsSync(join(ws, 'new.txt')), false);
    assert.equal(read(ws, 'old.txt'), 'changed\n');
  });

  it('a .gitignore the model wrote does not make a deletion unrestorable: `*`, then an approved rm, and revert puts the file back', async () => {
    server().setHandler(
      route({
        planner: json({ title: 'Hide', steps: ['Ignore everything, then delete'], dependencies: {} }),
        executor: byStep({
          'Ignore everything, then delete': [
            toolCalls(call('write_file', { path: '.gitignore', content: '*\n' })),
            toolCalls(call('run_command', { command: 'rm victim.txt' })),
            message('gone'),
          ],
        }),
        aggregator: message('done'),
      }),
    );
    const { ws, trace } = setup();
    writeFileSync(join(ws, 'victim.txt'), 'precious\n');
    const ran = await run(ws, trace);
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(existsSync(join(ws, 'victim.txt')), false);
    const deletion = eventsOf(trace, 'files_changed')
      .flatMap((e) => e.changes)
      .find((c) => c.path === 'victim.txt');
    assert.deepEqual([deletion?.kind, deletion?.restorable], ['deleted', true], 'the deletion was recorded with its content');
    const reverted = await cli(['revert', '--workspace', ws, '--trace', trace]);
    assert.equal(reverted.code, 0, reverted.stdout + reverted.stderr);
    assert.equal(read(ws, 'victim.txt'), 'precious\n');
    assert.equal(existsSync(join(ws, '.gitignore')), false);
  });

  it('usage errors: a missing trace or checkpoint folder, options of the other command, an unfinished run', async () => {
    const { base, trace } = setup();
    assert.match((await cli(['diff'])).stderr, /missing --trace FILE/);
    assert.match((await cli(['diff', '--trace', trace, '--force'])).stderr, /--force is an option of cortex revert/);
    assert.match((await cli(['revert', '--trace', trace, '--undo', '--step', 's1'])).stderr, /give no --step with it/);
    assert.match((await cli(['diff', '--trace', join(base, 'none.jsonl')])).stderr, /trace file .*none\.jsonl does not exist/);
    writeFileSync(
      trace,
      `${JSON.stringify({ seq: 0, time: 1, type: 'run_started', runId: 'r', task: 't', workspace: base, model: 'm', baseUrl: 'http://x/v1' })}\n${JSON.stringify({ seq: 1, time: 2, type: 'files_changed', stepId: 's1', callId: 'c', changes: [] })}\n`,
    );
    const missing = await cli(['diff', '--workspace', base, '--trace', trace]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /checkpoint folder .*run\.jsonl\.checkpoints does not exist/);
    mkdirSync(`${trace}.checkpoints`);
    const unfinished = await cli(['revert', '--workspace', base, '--trace', trace]);
    assert.equal(unfinished.code, 2);
    assert.match(unfinished.stderr, /the run has not finished/);
  });
});

function writeConfig(dir: string, values: Record<string, unknown>): string {
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(values));
  return file;
}
