import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, utimesSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { z } from 'zod';
import { join } from 'node:path';
import { recordToolCall } from '../../../src/core/checkpoints/callRecording';
import type { FileChange } from '../../../src/core/plan/changeSchema';
import { CheckpointRecorder } from '../../../src/core/checkpoints/checkpointRecorder';
import { hashBytes } from '../../../src/core/checkpoints/contentStore';
import { executeTool } from '../../../src/core/tools/toolExecutor';
import type { ToolDefinition } from '../../../src/core/tools/toolTypes';
import { createDirectoryTool } from '../../../src/core/tools/workspace/createDirectory';
import { editFileTool } from '../../../src/core/tools/workspace/editFile';
import { runCommandTool } from '../../../src/core/tools/workspace/runCommand';
import { writeFileTool } from '../../../src/core/tools/workspace/writeFile';
import { userGitRepository } from '../../support/userGitRepository';
import { toolContext } from '../tools/workspaceFixture';

interface Recorded {
  stepId: string;
  callId: string;
  changes: FileChange[];
}

const sha = (text: string) => hashBytes(Buffer.from(text));

describe('recording file changes', function () {
  this.timeout(20_000);
  let base: string;
  let ws: string;
  let recorded: Recorded[];
  let warnings: string[];
  let recorder: CheckpointRecorder;

  const makeRecorder = (options: { useGit?: boolean; maxFileBytes?: number } = {}) =>
    new CheckpointRecorder({
      dir: join(base, 'checkpoints'),
      workspaceRoot: ws,
      maxFileBytes: options.maxFileBytes ?? 1024 * 1024,
      recordChanges: (stepId, callId, changes) => recorded.push({ stepId, callId, changes }),
      warn: (message) => warnings.push(message),
      useGit: options.useGit,
    });

  /** A real tool call through the recorder; its changes are in `recorded` when it resolves. */
  const call = async (tool: ToolDefinition, args: unknown, callId: string, stepId = 's1') => {
    const result = await recordToolCall(recorder, { stepId, callId, tool }, toolContext(ws), (context) => executeTool(tool, args, context, 100_000));
    await recorder.settle();
    return result;
  };

  const changesOf = (callId: string) => recorded.find((r) => r.callId === callId)?.changes ?? [];

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-rec-')));
    ws = join(base, 'ws');
    mkdirSync(ws);
    recorded = [];
    warnings = [];
    recorder = makeRecorder();
  });
  afterEach(async () => {
    await recorder.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('starts no git until a command is recorded: the shadow repository is made for the first one', async () => {
    const shadowDir = join(base, 'checkpoints', 'shadow.git');
    await recorder.prepare();
    assert.equal((await call(writeFileTool, { path: 'a.txt', content: 'one\n' }, 'c1')).ok, true);
    assert.equal(existsSync(shadowDir), false, 'file tools record without git');
    await recorder.recordCommand('s1', 'cmd', async () => writeFileSync(join(ws, 'a.txt'), 'two\n'));
    assert.equal(existsSync(shadowDir), true);
    assert.deepEqual(
      changesOf('cmd').map((c) => `${c.kind} ${c.path} ${c.restorable}`),
      ['modified a.txt true'],
    );
    await recorder.close();
    assert.equal(existsSync(shadowDir), false, 'removed when the run ends');
  });

  it('records what write_file, edit_file and create_directory change, with hashes, line counts and new folders', async () => {
    assert.equal((await call(writeFileTool, { path: 'src/deep/a.txt', content: 'one\ntwo\n' }, 'c1')).ok, true);
    assert.deepEqual(changesOf('c1'), [
      { path: 'src', kind: 'created', before: null, after: null, restorable: true, directory: true },
      { path: 'src/deep', kind: 'created', before: null, after: null, restorable: true, directory: true },
      { path: 'src/deep/a.txt', kind: 'created', before: null, after: sha('one\ntwo\n'), restorable: true, added: 2, removed: 0 },
    ]);
    assert.equal((await call(editFileTool, { path: 'src/deep/a.txt', old_text: 'two', new_text: 'TWO\nthree' }, 'c2', 's2')).ok, true);
    assert.deepEqual(changesOf('c2'), [
      { path: 'src/deep/a.txt', kind: 'modified', before: sha('one\ntwo\n'), after: sha('one\nTWO\nthree\n'), restorable: true, added: 2, removed: 1 },
    ]);
    assert.equal(recorded.find((r) => r.callId === 'c2')!.stepId, 's2');
    assert.equal((await call(createDirectoryTool, { path: 'empty/inner' }, 'c3')).ok, true);
    assert.deepEqual(
      changesOf('c3').map((c) => `${c.kind} ${c.path}${c.directory ? '/' : ''}`),
      ['created empty/', 'created empty/inner/'],
    );
    // The old content is kept outside the workspace.
    assert.equal((await recorder.store.get(sha('one\ntwo\n')))?.toString(), 'one\ntwo\n');
  });

  it('asks what a tool declares it changes, not its kind or origin: unrecorded runs as it is, files get beforeWrite, workspace is scanned', async () => {
    /** A tool that writes `name` itself, announcing it when it was given the hook; says whether it was. */
    const writer = (changes: ToolDefinition['changes'], origin: ToolDefinition['origin'], name: string): ToolDefinition => ({
      name: `write_${name.replace(/\W/g, '_')}`,
      description: 'writes a file',
      schema: z.strictObject({}),
      kind: 'write',
      readOnly: false,
      origin,
      idempotent: false,
      changes,
      async run(_args, context) {
        const target = join(ws, name);
        await context.beforeWrite?.(target);
        writeFileSync(target, `${name}\n`);
        return context.beforeWrite ? 'hooked' : 'plain';
      },
    });
    const unrecorded = await call(writer('unrecorded', { kind: 'builtin' }, 'builtin.txt'), {}, 'u1');
    assert.equal(unrecorded.output, 'plain', 'a built-in write tool declaring unrecorded changes gets no beforeWrite');
    assert.deepEqual(changesOf('u1'), []);
    const files = await call(writer('files', { kind: 'mcp', server: 'srv', tool: 'write' }, 'announced.txt'), {}, 'f1');
    assert.equal(files.output, 'hooked', 'a tool of MCP origin declaring file changes gets beforeWrite');
    assert.deepEqual(
      changesOf('f1').map((c) => `${c.kind} ${c.path}`),
      ['created announced.txt'],
    );
    const scanned = await call(writer('workspace', { kind: 'builtin' }, 'scanned.txt'), {}, 'w1');
    assert.equal(scanned.output, 'plain', 'a workspace tool is watched by scanning, not told to announce');
    assert.deepEqual(
      changesOf('w1').map((c) => `${c.kind} ${c.path}`),
      ['created scanned.txt'],
    );
  });

  it('records nothing for a call that changed nothing (failed, or the same content written again)', async () => {
    writeFileSync(join(ws, 'same.txt'), 'same\n');
    assert.equal((await call(writeFileTool, { path: 'same.txt', content: 'same\n' }, 'c1')).ok, true);
    assert.equal((await call(editFileTool, { path: 'same.txt', old_text: 'absent', new_text: 'x' }, 'c2')).ok, false);
    mkdirSync(join(ws, 'dir'));
    assert.equal((await call(writeFileTool, { path: 'dir', content: 'x' }, 'c3')).ok, false);
    assert.deepEqual(recorded, []);
  });

  it('records a file over cortex.checkpoints.maxFileBytes as changed but not restorable, and says why', async () => {
    await recorder.close();
    recorder = makeRecorder({ maxFileBytes: 2048 });
    writeFileSync(join(ws, 'big.txt'), 'x'.repeat(5000));
    await call(writeFileTool, { path: 'big.txt', content: 'small now\n' }, 'c1');
    const [change] = changesOf('c1');
    assert.equal(change.kind, 'modified');
    assert.equal(change.restorable, false);
    assert.equal(change.before, sha('x'.repeat(5000)), 'the hash is still known');
    assert.match(change.note ?? '', /5,000 bytes, over cortex\.checkpoints\.maxFileBytes \(2,048\).*not saved/);
    assert.equal(await recorder.store.get(sha('x'.repeat(5000))), undefined);
  });

  it('finds what a command created, modified and deleted, keeps the old contents exactly (CRLF under text=auto), records ignored files too, skips node_modules and unchanged ones', async () => {
    writeFileSync(join(ws, '.gitattributes'), '* text=auto\n');
    writeFileSync(join(ws, '.gitignore'), 'build/\n*.log\n');
    writeFileSync(join(ws, 'crlf.txt'), 'a\r\nb\r\n');
    writeFileSync(join(ws, 'gone.txt'), 'delete me\n');
    writeFileSync(join(ws, 'touched.txt'), 'same\n');
    mkdirSync(join(ws, 'node_modules'));
    await recorder.prepare();
    await recorder.recordCommand('s1', 'cmd', async () => {
      writeFileSync(join(ws, 'crlf.txt'), 'changed\n');
      unlinkSync(join(ws, 'gone.txt'));
      writeFileSync(join(ws, 'new.txt'), 'new\n');
      utimesSync(join(ws, 'touched.txt'), new Date(), new Date(Date.now() + 5000));
      mkdirSync(join(ws, 'build'));
      writeFileSync(join(ws, 'build', 'out.js'), 'ignored by .gitignore');
      writeFileSync(join(ws, 'debug.log'), 'ignored by .gitignore');
      writeFileSync(join(ws, 'node_modules', 'x.js'), 'skipped');
    });
    const changes = changesOf('cmd');
    assert.deepEqual(
      changes.map((c) => `${c.kind} ${c.path} ${c.restorable}`),
      ['created build/out.js true', 'modified crlf.txt true', 'created debug.log true', 'deleted gone.txt true', 'created new.txt true', 'created build true'],
    );
    const crlf = changes.find((c) => c.path === 'crlf.txt')!;
    assert.equal(crlf.before, sha('a\r\nb\r\n'));
    assert.equal((await recorder.store.get(crlf.before ?? ''))?.toString(), 'a\r\nb\r\n', 'the bytes before, not a normalised copy');
    assert.equal((await recorder.store.get(changes.find((c) => c.path === 'gone.txt')!.before!))?.toString(), 'delete me\n');
  });

  it("without git, a command's modifications are recorded as not restorable (creations still are)", async () => {
    await recorder.close();
    recorder = makeRecorder({ useGit: false });
    writeFileSync(join(ws, 'old.txt'), 'old\n');
    await recorder.recordCommand('s1', 'cmd', async () => {
      writeFileSync(join(ws, 'old.txt'), 'new content\n');
      writeFileSync(join(ws, 'made.txt'), 'made\n');
    });
    const changes = changesOf('cmd');
    assert.deepEqual(
      changes.map((c) => `${c.kind} ${c.path} ${c.restorable}`),
      ['created made.txt true', 'modified old.txt false'],
    );
    assert.match(changes[1].note ?? '', /git is not installed/);
  });

  it("leaves out of a command's changes a parallel file tool's write whose recording is still under way when the command ends", async () => {
    await recorder.prepare();
    let fileTool!: Promise<void>;
    await recorder.recordCommand('s1', 'cmd', async () => {
      let written!: () => void;
      const wrote = new Promise<void>((resolve) => (written = resolve));
      // The other step's write lands while the command runs; the command ends before that call's
      // recording (reading what is there now) has been queued.
      fileTool = recorder.recordFileTool('s2', 'write', async (beforeWrite) => {
        await beforeWrite(join(ws, 'docs', 'dates.md'));
        mkdirSync(join(ws, 'docs'));
        writeFileSync(join(ws, 'docs', 'dates.md'), '# Dates\n');
        written();
      });
      await wrote;
      writeFileSync(join(ws, 'by-command.txt'), 'cmd\n');
    });
    await fileTool;
    await recorder.settle();
    assert.deepEqual(
      changesOf('cmd').map((c) => c.path),
      ['by-command.txt'],
    );
    assert.ok(
      changesOf('write').some((c) => c.kind === 'created' && c.path === 'docs/dates.md'),
      "the write is its own call's change",
    );
  });

  it("leaves out of a command's changes what a file tool of another step wrote while the command ran", async () => {
    writeFileSync(join(ws, 'shared.txt'), 'v1\n');
    await recorder.prepare();
    await recorder.recordCommand('s1', 'cmd', async () => {
      // A parallel step's write lands in the middle of the command.
      await call(writeFileTool, { path: 'shared.txt', content: 'v2 from s2\n' }, 'write', 's2');
      await call(writeFileTool, { path: 'tool-only.txt', content: 'by s2\n' }, 'write2', 's2');
      writeFileSync(join(ws, 'by-command.txt'), 'cmd\n');
    });
    assert.deepEqual(
      changesOf('cmd').map((c) => c.path),
      ['by-command.txt'],
    );
    assert.deepEqual(
      changesOf('write').map((c) => `${c.path} ${c.before === sha('v1\n')}`),
      ['shared.txt true'],
    );
  });

  it('a real run_command: the workspace git repository is untouched (HEAD, index, stash, status)', async function () {
    const { state } = userGitRepository(ws, 'tracked.txt');
    const before = state();
    const context = { ...toolContext(ws), commandExecution: { sandboxMode: 'off' as const, network: false, envPassthrough: [] } };
    const result = await recordToolCall(recorder, { stepId: 's1', callId: 'cmd', tool: runCommandTool }, context, (ctx) =>
      executeTool(runCommandTool, { command: 'sh -c "echo made > made.txt; echo edited > tracked.txt"' }, ctx, 100_000),
    );
    assert.equal(result.ok, true, result.output);
    assert.deepEqual(
      changesOf('cmd').map((c) => `${c.kind} ${c.path}`),
      ['created made.txt', 'modified tracked.txt'],
    );
    const after = state();
    assert.equal(after.head, before.head);
    assert.equal(after.branches, before.branches);
    assert.equal(after.stash, before.stash);
    assert.equal(after.index, before.index, 'the index file is byte for byte the same');
    assert.equal(after.config, before.config);
    assert.deepEqual(before.status.split('\n').filter(Boolean), ['A  staged.txt']);
    assert.deepEqual(
      after.status.split('\n').filter(Boolean).sort(),
      [' M tracked.txt', '?? made.txt', 'A  staged.txt'].sort(),
      'git sees exactly what the command did',
    );
  });
});
