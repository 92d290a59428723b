import assert from 'node:assert/strict';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContentStore } from '../../../src/core/checkpoints/contentStore';
import { createRestoreGuard } from '../../../src/core/checkpoints/restoreGuard';
import { applyRevert } from '../../../src/core/checkpoints/revertApply';
import type { RevertTarget } from '../../../src/core/checkpoints/revertPlan';
import { DEFAULT_PROTECTED_PATHS } from '../../../src/core/files/protectedPaths';

// A restore writes through the same guards as the file tools (docs/design.md, “Checkpoints and
// revert”): targets are built by hand here, as a forged trace could ask for them.

describe('restore guard', () => {
  let base: string;
  let ws: string;
  let store: ContentStore;
  let hash: string;
  beforeEach(async () => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-guard-')));
    ws = join(base, 'ws');
    mkdirSync(ws);
    store = new ContentStore(join(base, 'cp'));
    hash = await store.put(Buffer.from('[core]\n\tfsmonitor = touch /tmp/pwned\n'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const create = (path: string): RevertTarget => ({ path, target: { kind: 'file', hash }, expected: { kind: 'absent' }, laterSteps: [] });
  const restore = (targets: RevertTarget[], confirmed: string[] = [], force = false) =>
    applyRevert(targets, {
      workspaceRoot: ws,
      store,
      maxFileBytes: 1 << 20,
      force,
      guard: createRestoreGuard({ protectedPaths: DEFAULT_PROTECTED_PATHS, confirmed, runFiles: [join(ws, 'run.jsonl'), join(ws, 'run.jsonl.lock')] }),
    });

  it('never writes inside .git (any depth, any case), nor the run’s own files, confirmed or forced', async () => {
    const paths = ['.git/config', 'sub/.git/hooks/pre-commit', '.GIT/config', '.git./config', 'run.jsonl', 'run.jsonl.lock'];
    const outcome = await restore(paths.map(create), paths, true);
    assert.deepEqual(
      outcome.conflicts.map((c) => [c.path, c.reason]),
      paths.map((p) => [p, 'refused']),
    );
    assert.deepEqual(outcome.files, []);
    for (const p of paths) assert.equal(existsSync(join(ws, p)), false, p);
  });

  it('a protected path is left alone unless the person confirmed that very path', async () => {
    const paths = ['.vscode/tasks.json', '.github/workflows/x.yml', 'plain.txt'];
    const first = await restore(paths.map(create));
    assert.deepEqual(
      first.conflicts.map((c) => [c.path, c.reason]),
      [
        ['.vscode/tasks.json', 'protected'],
        ['.github/workflows/x.yml', 'protected'],
      ],
    );
    assert.match(first.conflicts[0].detail, /protected path .*\.vscode\/\*\*.*needs your confirmation/);
    assert.equal(existsSync(join(ws, '.vscode/tasks.json')), false);
    assert.equal(existsSync(join(ws, 'plain.txt')), true);
    const second = await restore([create('.vscode/tasks.json'), create('.github/workflows/x.yml')], ['.VSCODE/tasks.json']);
    assert.deepEqual(
      second.conflicts.map((c) => [c.path, c.reason]),
      [['.github/workflows/x.yml', 'protected']],
    );
    assert.ok(readFileSync(join(ws, '.vscode/tasks.json'), 'utf8').includes('fsmonitor'));
  });

  it('a path that resolves into .git through a symlinked folder is refused', async () => {
    mkdirSync(join(ws, '.git'));
    symlinkSync(join(ws, '.git'), join(ws, 'innocent'));
    const outcome = await restore([create('innocent/config')], ['innocent/config'], true);
    assert.deepEqual(
      outcome.conflicts.map((c) => c.reason),
      ['refused'],
    );
    assert.equal(existsSync(join(ws, '.git/config')), false);
  });

  it('a file with several hard links needs confirmation (writing it would write the other names too)', async () => {
    writeFileSync(join(base, 'outside.txt'), 'outside\n');
    linkSync(join(base, 'outside.txt'), join(ws, 'linked.txt'));
    const modified: RevertTarget = { path: 'linked.txt', target: { kind: 'file', hash }, expected: undefined, laterSteps: [] };
    const outcome = await restore([modified], [], true);
    assert.deepEqual(
      outcome.conflicts.map((c) => c.reason),
      ['protected'],
    );
    assert.equal(readFileSync(join(base, 'outside.txt'), 'utf8'), 'outside\n');
  });
});
