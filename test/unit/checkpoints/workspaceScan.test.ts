import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareScans, scanWorkspaceSync } from '../../../src/core/checkpoints/workspaceScan';
import { mapSettings } from '../../../src/host/settingsMapping';
import { parseConfig } from '../../../src/core/config/configSchema';

describe('workspace scan', () => {
  it('scans files and folders, skipping .git and node_modules but not what .gitignore says, and compares two scans', () => {
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
      const before = scanWorkspaceSync(ws);
      // The workspace's .gitignore is the model's to write: it decides nothing here.
      assert.deepEqual([...before.files.keys()].sort(), ['b.txt', 'src/.gitignore', 'src/a.ts', 'src/gen/out.js']);
      assert.deepEqual([...before.folders].sort(), ['src', 'src/gen']);
      writeFileSync(join(ws, 'src', 'a.ts'), 'changed and longer');
      rmSync(join(ws, 'b.txt'));
      mkdirSync(join(ws, 'lib'));
      writeFileSync(join(ws, 'lib', 'c.ts'), 'c');
      const difference = compareScans(before, scanWorkspaceSync(ws));
      assert.deepEqual(difference, { created: ['lib/c.ts'], touched: ['src/a.ts'], deleted: ['b.txt'], createdFolders: ['lib'], deletedFolders: [] });
      assert.equal(scanWorkspaceSync(ws, 2).truncated, true, 'a scan past its entry limit says so');
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
