import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareScans, scanWorkspace } from '../../../src/core/checkpoints/workspaceScan';
import { mapSettings } from '../../../src/host/settingsMapping';
import { parseConfig } from '../../../src/core/config/configSchema';

describe('workspace scan', () => {
  it('scans files and folders, skipping .git and node_modules but not what .gitignore says, and compares two scans', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'cortex-scan-'));
    try {
      mkdirSync(join(ws, '.git'));
      writeFileSync(join(ws, '.git', 'HEAD'), 'x');
      mkdirSync(join(ws, 'node_modules', 'p'), { recursive: true });
      writeFileSync(join(ws, 'node_modules', 'p', 'i.js'), 'x');
      mkdirSync(join(ws, 'src', 'gen'), { recursive: true });
      writeFileSync(join(ws, 'src', '.gitignore'), 'gen/\n');
      writeFileSync(join(ws, 'src', 'gen', 'out.js'), 'x');
      writeFileSync(join(ws, 'src', 'a.ts'), 'a');
      writeFileSync(join(ws, 'b.txt'), 'b');
      const before = await scanWorkspace(ws);
      // The workspace's .gitignore is the model's to write: it decides nothing here.
      assert.deepEqual([...before.files.keys()].sort(), ['b.txt', 'src/.gitignore', 'src/a.ts', 'src/gen/out.js']);
      assert.deepEqual([...before.folders].sort(), ['src', 'src/gen']);
      writeFileSync(join(ws, 'src', 'a.ts'), 'changed and longer');
      rmSync(join(ws, 'b.txt'));
      mkdirSync(join(ws, 'lib'));
      writeFileSync(join(ws, 'lib', 'c.ts'), 'c');
      const difference = compareScans(before, await scanWorkspace(ws));
      assert.deepEqual(difference, { created: ['lib/c.ts'], touched: ['src/a.ts'], deleted: ['b.txt'], createdFolders: ['lib'], deletedFolders: [] });
      assert.equal((await scanWorkspace(ws, 2)).truncated, true, 'a scan past its entry limit says so');
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });

  it('finds every file of a deep and wide tree, reading folders side by side, and lets the thread run meanwhile', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'cortex-scan-'));
    try {
      const expected: string[] = [];
      const folders: string[] = [];
      for (let d = 0; d < 12; d++) {
        // Each top folder holds a chain of nested folders, so subfolders keep turning up while
        // other folders are still being read.
        let rel = `top${d}`;
        for (let depth = 0; depth < 5; depth++) {
          mkdirSync(join(ws, rel), { recursive: true });
          folders.push(rel);
          for (let f = 0; f < 8; f++) {
            writeFileSync(join(ws, rel, `f${f}.txt`), `${d}-${depth}-${f}`);
            expected.push(`${rel}/f${f}.txt`);
          }
          rel = `${rel}/n${depth}`;
        }
      }
      let turns = 0;
      const ticking = setInterval(() => turns++, 0);
      const scan = await scanWorkspace(ws);
      clearInterval(ticking);
      assert.deepEqual([...scan.files.keys()].sort(), expected.sort());
      assert.deepEqual([...scan.folders].sort(), folders.sort());
      assert.equal(scan.truncated, false);
      assert.ok(turns > 0, 'timers ran while the workspace was scanned: the scan does not hold the thread');
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });

  it('settings: a workspace can switch recording on or save larger files, never switch it off or save less', () => {
    const map = (enabled: object, size: object) =>
      parseConfig(mapSettings((key) => (key === 'cortex.checkpoints.enabled' ? enabled : key === 'cortex.checkpoints.maxFileBytes' ? size : undefined)).input);
    assert.equal(map({ workspaceValue: false }, {})['cortex.checkpoints.enabled'], true);
    assert.equal(map({ globalValue: false }, {})['cortex.checkpoints.enabled'], false);
    assert.equal(map({ globalValue: false, workspaceFolderValue: true }, {})['cortex.checkpoints.enabled'], true);
    assert.equal(map({}, { globalValue: 5_000_000, workspaceValue: 2048 })['cortex.checkpoints.maxFileBytes'], 5_000_000);
    assert.equal(map({}, { workspaceValue: 50_000_000 })['cortex.checkpoints.maxFileBytes'], 50_000_000);
    assert.throws(() => map({ workspaceValue: 'no' }, {}), /cortex\.checkpoints\.enabled/);
  });
});
