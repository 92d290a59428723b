import assert from 'node:assert/strict';
import { realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { argumentLeavingByLink, argumentLeavingByText, pathCandidates } from '../../../src/core/policy/argumentPaths';
import { scanOptions } from '../../../src/core/policy/optionScanner';
import { createJailFixture, type JailFixture } from '../tools/workspaceFixture';

describe('argument paths of auto-approved commands', () => {
  it('reads a word as every path a program could open', () => {
    assert.deepEqual(pathCandidates('src/a.ts'), ['src/a.ts']);
    assert.deepEqual(pathCandidates('--file=/etc/shadow'), ['--file=/etc/shadow', '/etc/shadow']);
    assert.deepEqual(pathCandidates('-f/etc/x'), ['-f/etc/x', '/etc/x', 'etc/x', 'tc/x', 'c/x', '/x', 'x']);
  });

  it('flags absolute, home-relative and climbing paths by their text', () => {
    for (const word of ['/etc/passwd', '~/.ssh', '../x', 'a/../../b', '--file=/etc/shadow', '-f/etc/shadow', 'C:\\Windows', '\\\\server\\share']) {
      assert.equal(argumentLeavingByText([word]), word, word);
    }
    for (const word of ['src', 'a..b', 'HEAD~1..main', '-n5', '/dev/null', '--format=%H']) assert.equal(argumentLeavingByText([word]), undefined, word);
  });

  describe('on the disk (symbolic links followed)', () => {
    let fx: JailFixture;
    let root: string;
    beforeEach(async () => {
      fx = await createJailFixture();
      root = await realpath(fx.ws);
    });
    afterEach(async () => fx.cleanup());

    it('refuses a path through a linked folder, a linked file, a dangling link, and /proc through a link', async () => {
      await symlink('/proc/self', path.join(fx.ws, 'self'));
      for (const word of [
        'link-out/secret.txt',
        'link-file-out',
        'dangling',
        'dangling-dir/x',
        '--file=link-out/secret.txt',
        '-flink-file-out',
        'self/environ',
      ]) {
        const leaving = await argumentLeavingByLink([word], root, root);
        assert.equal(leaving?.word, word, word);
        assert.ok(!leaving.location.startsWith(root), leaving.location);
      }
    });

    it('accepts paths that stay inside, existing or not, links included, from a sub-folder too', async () => {
      assert.equal(
        await argumentLeavingByLink(['inside.txt', 'sub/file.txt', 'link-in/file.txt', 'missing/new.txt', '-n', '5', 'TODO'], root, root),
        undefined,
      );
      assert.equal(await argumentLeavingByLink(['file.txt', '../inside.txt'], path.join(root, 'sub'), root), undefined);
    });

    it('refuses a link loop instead of failing open', async () => {
      const leaving = await argumentLeavingByLink(['loop-a'], root, root);
      assert.match(leaving?.location ?? '', /cannot be resolved/);
    });
  });
});

describe('scanOptions', () => {
  const spec = { flags: 'ab', valued: 'n', long: ['all'], longValued: ['lines'], longOptional: ['color'], numeric: true };

  it('accepts bundled flags, attached and separate values, long forms, -NUM, operands anywhere and --', () => {
    const scan = scanOptions(['-ab', 'x', '-n5', '-n', '7', '--all', '--lines=3', '--lines', '4', '--color', '--color=never', '-12', '--', '-z'], spec);
    assert.deepEqual(scan, {
      ok: true,
      operands: ['x', '-z'],
      values: ['5', '7', '3', '4', 'never'],
      seen: ['-a', '-b', '-n', '-n', '--all', '--lines', '--lines', '--color', '--color'],
    });
  });

  it('refuses unknown, abbreviated and value-less options', () => {
    for (const args of [['-c'], ['-ac'], ['--al'], ['--unknown'], ['--all=x'], ['-n'], ['--lines'], ['--colo']]) {
      assert.equal(scanOptions(args, spec).ok, false, args.join(' '));
    }
  });

  it('a value that looks like an option is a value, not an option', () => {
    const scan = scanOptions(['-n', '-x', '--lines', '--evil'], spec);
    assert.ok(scan.ok);
    assert.deepEqual(scan.values, ['-x', '--evil']);
  });
});
