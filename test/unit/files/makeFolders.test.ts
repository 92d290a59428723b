import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeFolders, makeFoldersSync } from '../../../src/core/files/makeFolders';

const variants: Array<[string, (folder: string, mode?: number) => Promise<void>]> = [
  ['makeFolders', makeFolders],
  ['makeFoldersSync', async (folder, mode) => makeFoldersSync(folder, mode)],
];

for (const [name, make] of variants) {
  describe(name, () => {
    let root: string;
    beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'cortex-folders-'))));
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('makes every missing level, with the mode for the new ones only, and accepts what exists', async () => {
      const parent = join(root, 'parent');
      mkdirSync(parent);
      chmodSync(parent, 0o755);
      const deep = join(parent, 'a', 'b', 'c');
      await make(deep, 0o700);
      for (const level of [join(parent, 'a'), join(parent, 'a', 'b'), deep]) {
        assert.ok(statSync(level).isDirectory(), level);
        assert.equal(statSync(level).mode & 0o777, 0o700, level);
      }
      assert.equal(statSync(parent).mode & 0o777, 0o755);
      await make(deep);
      await make(parent);
    });

    it('refuses a path through a file', async () => {
      writeFileSync(join(root, 'file'), 'x');
      await assert.rejects(() => make(join(root, 'file', 'sub')), { code: 'ENOTDIR' });
    });

    it('fails at once under /proc, where Node’s own recursive mkdir never returns', async () => {
      assert.ok(existsSync('/proc/self'), 'this test needs Linux /proc');
      await assert.rejects(() => make('/proc/cortex-nope/deeper'), { code: 'ENOENT' });
    });
  });
}
