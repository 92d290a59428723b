import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeFolders } from '../../../src/core/files/makeFolders';

describe('makeFolders', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'cortex-folders-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('makes every missing level, with the mode for the new ones only, and accepts what exists', () => {
    const parent = join(root, 'parent');
    mkdirSync(parent);
    chmodSync(parent, 0o755);
    const deep = join(parent, 'a', 'b', 'c');
    makeFolders(deep, 0o700);
    for (const level of [join(parent, 'a'), join(parent, 'a', 'b'), deep]) {
      assert.ok(statSync(level).isDirectory(), level);
      assert.equal(statSync(level).mode & 0o777, 0o700, level);
    }
    assert.equal(statSync(parent).mode & 0o777, 0o755);
    makeFolders(deep);
    makeFolders(parent);
  });

  it('refuses a path through a file', () => {
    writeFileSync(join(root, 'file'), 'x');
    assert.throws(() => makeFolders(join(root, 'file', 'sub')), { code: 'ENOTDIR' });
  });

  it('fails at once under /proc, where Node’s own recursive mkdir never returns', () => {
    assert.ok(existsSync('/proc/self'), 'this test needs Linux /proc');
    assert.throws(() => makeFolders('/proc/cortex-nope/deeper'), { code: 'ENOENT' });
  });
});
