import assert from 'node:assert/strict';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { builtinTools } from '../../../src/core/tools/workspace/builtinTools';
import { executeTool, type ToolRunResult } from '../../../src/core/tools/toolExecutor';
import type { ToolContext } from '../../../src/core/tools/toolTypes';
import { applyEdit } from '../../../src/core/tools/workspace/editFile';
import { globMatcher, globToRegExp } from '../../../src/core/files/globPattern';
import { selectLines } from '../../../src/core/tools/workspace/readFile';
import { readTextFile } from '../../../src/core/files/textFile';
import { createTempWorkspace, toolContext } from './workspaceFixture';

const tool = (name: string) => builtinTools.find((t) => t.name === name)!;

describe('workspace tools', () => {
  let ws: string;
  let cleanup: () => Promise<void>;
  let context: ToolContext;
  const run = (name: string, args: Record<string, unknown>, overrides: Partial<ToolContext> = {}): Promise<ToolRunResult> =>
    executeTool(tool(name), tool(name).schema.parse(args), { ...context, ...overrides }, 32_768);

  beforeEach(async () => {
    ({ ws, cleanup } = await createTempWorkspace());
    context = toolContext(ws);
    await mkdir(path.join(ws, 'src', 'lib'), { recursive: true });
    await mkdir(path.join(ws, 'node_modules', 'dep'), { recursive: true });
    await writeFile(path.join(ws, 'README.md'), '# Title\nline two\nline three\n');
    await writeFile(path.join(ws, 'src', 'index.ts'), 'export const a = 1;\nexport const b = 2;\n');
    await writeFile(path.join(ws, 'src', 'lib', 'util.ts'), 'export function helper() {\n  return "Helper";\n}\n');
    await writeFile(path.join(ws, 'node_modules', 'dep', 'index.ts'), 'export const helper = 1;\n');
    await writeFile(path.join(ws, 'image.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]));
  });
  afterEach(async () => cleanup());

  describe('read_file', () => {
    it('reads a whole file or a line range', async () => {
      assert.deepEqual(
        { ok: (await run('read_file', { path: 'README.md' })).ok, output: (await run('read_file', { path: 'README.md' })).output },
        { ok: true, output: '# Title\nline two\nline three\n' },
      );
      assert.equal((await run('read_file', { path: 'README.md', start_line: 2, end_line: 3 })).output, 'line two\nline three');
      assert.equal((await run('read_file', { path: 'README.md', start_line: 3 })).output, 'line three');
      assert.equal((await run('read_file', { path: 'README.md', end_line: 1 })).output, '# Title');
      assert.equal((await run('read_file', { path: 'README.md', start_line: 2, end_line: 99 })).output, 'line two\nline three');
    });

    it('explains bad ranges, missing files, folders, binary and oversized files', async () => {
      const cases: Array<[Record<string, unknown>, RegExp, Partial<ToolContext>?]> = [
        [{ path: 'README.md', start_line: 9 }, /start_line 9 is past the end of the file \(3 lines\)/],
        [{ path: 'README.md', start_line: 3, end_line: 2 }, /end_line \(2\) is before start_line \(3\)/],
        [{ path: 'nope.txt' }, /'nope.txt' does not exist/],
        [{ path: 'src' }, /'src' is a directory; use list_directory/],
        [{ path: 'image.bin' }, /'image.bin' looks like a binary file/],
        [{ path: 'README.md' }, /'README.md' is 28 bytes, over the 10-byte read limit/, { maxReadFileBytes: 10 }],
      ];
      for (const [args, pattern, overrides] of cases) {
        const result = await run('read_file', args, overrides);
        assert.equal(result.ok, false, JSON.stringify(args));
        assert.match(result.output, pattern);
      }
    });

    it('reads files of any size the same way, around a 64 KiB read chunk: text, binary, over the limit', async () => {
      const line = 'a line of text\n';
      const chunk = 64 * 1024;
      for (const size of [chunk - 1, chunk, chunk + 1, 3 * chunk]) {
        const text = line.repeat(Math.ceil(size / line.length)).slice(0, size);
        await writeFile(path.join(ws, 'sized.txt'), text);
        assert.equal((await run('read_file', { path: 'sized.txt' }, { maxReadFileBytes: 1_000_000 })).ok, true, `size ${size}`);
        assert.equal(await readTextFile(path.join(ws, 'sized.txt'), 'sized.txt', 1_000_000), text, `size ${size}`);
        await assert.rejects(readTextFile(path.join(ws, 'sized.txt'), 'sized.txt', size - 1), {
          message: `'sized.txt' is ${size} bytes, over the ${size - 1}-byte read limit; use search_text to find the part you need`,
        });
        const binary = Buffer.from(text);
        binary[10] = 0;
        await writeFile(path.join(ws, 'sized.bin'), binary);
        await assert.rejects(readTextFile(path.join(ws, 'sized.bin'), 'sized.bin', 1_000_000), /'sized.bin' looks like a binary file/);
      }
    });

    it('says when a file is empty', async () => {
      await writeFile(path.join(ws, 'empty.txt'), '');
      assert.equal((await run('read_file', { path: 'empty.txt' })).output, "('empty.txt' is empty)");
    });
  });

  describe('write_file and create_directory', () => {
    it('creates files with missing parents, then overwrites', async () => {
      const created = await run('write_file', { path: 'out/deep/new.txt', content: 'héllo' });
      assert.deepEqual([created.ok, created.output], [true, "Created 'out/deep/new.txt' (6 bytes)"]);
      assert.equal(await readFile(path.join(ws, 'out', 'deep', 'new.txt'), 'utf8'), 'héllo');
      const overwritten = await run('write_file', { path: 'out/deep/new.txt', content: 'x' });
      assert.equal(overwritten.output, "Overwrote 'out/deep/new.txt' (1 bytes)");
      const dir = await run('write_file', { path: 'src', content: 'x' });
      assert.match(dir.output, /'src' is a directory/);
    });

    it('creates folders, accepts existing ones and refuses a file in the way', async () => {
      assert.equal((await run('create_directory', { path: 'a/b/c' })).output, "Created folder 'a/b/c'");
      assert.ok((await stat(path.join(ws, 'a', 'b', 'c'))).isDirectory());
      assert.equal((await run('create_directory', { path: 'a/b' })).output, "Folder 'a/b' already exists");
      const blocked = await run('create_directory', { path: 'README.md' });
      assert.equal(blocked.ok, false);
      assert.match(blocked.output, /already exists and is a file/);
    });
  });

  describe('edit_file', () => {
    it('replaces a unique exact text', async () => {
      const result = await run('edit_file', { path: 'src/index.ts', old_text: 'const b = 2', new_text: 'const b = 3' });
      assert.deepEqual([result.ok, result.output], [true, "Replaced 1 occurrence in 'src/index.ts'"]);
      assert.equal(await readFile(path.join(ws, 'src', 'index.ts'), 'utf8'), 'export const a = 1;\nexport const b = 3;\n');
    });

    it('says clearly when the text is not found or not unique', async () => {
      const missing = await run('edit_file', { path: 'src/index.ts', old_text: 'const c', new_text: 'x' });
      assert.equal(missing.ok, false);
      assert.match(missing.output, /old_text was not found in 'src\/index.ts'/);
      const twice = await run('edit_file', { path: 'src/index.ts', old_text: 'export const', new_text: 'const' });
      assert.equal(twice.ok, false);
      assert.match(twice.output, /old_text occurs 2 times in 'src\/index.ts' \(at lines 1, 2\).*replace_all/);
      assert.equal(await readFile(path.join(ws, 'src', 'index.ts'), 'utf8'), 'export const a = 1;\nexport const b = 2;\n');
      const all = await run('edit_file', { path: 'src/index.ts', old_text: 'export const', new_text: 'const', replace_all: true });
      assert.equal(all.output, "Replaced 2 occurrences in 'src/index.ts'");
    });
  });

  describe('applyEdit', () => {
    it('inserts replacement text literally ($& and $1 are not patterns)', () => {
      assert.deepEqual(applyEdit('a b c', 'b', '$&$1', false, 'f'), { text: 'a $&$1 c', count: 1 });
    });

    it('matches \\n text against a \\r\\n file and keeps its line ends', () => {
      assert.deepEqual(applyEdit('one\r\ntwo\r\nthree', 'one\ntwo', 'uno\ndos', false, 'f'), { text: 'uno\r\ndos\r\nthree', count: 1 });
    });

    it('hints at whitespace differences and refuses a no-op', () => {
      assert.throws(() => applyEdit('if (a) {\n    b();\n}', 'if (a) {\n  b();\n}', 'x', false, 'f'), /similar text with different whitespace/);
      assert.throws(() => applyEdit('abc', 'b', 'b', false, 'f'), /identical/);
    });
  });

  describe('selectLines', () => {
    it('treats a final newline as the end of the last line', () => {
      assert.equal(selectLines('a\nb\n', 2, 2), 'b');
      assert.throws(() => selectLines('a\nb\n', 3, undefined), /past the end of the file \(2 lines\)/);
      assert.equal(selectLines('a\nb', undefined, undefined), 'a\nb');
    });
  });

  describe('list_directory', () => {
    it('lists sorted entries with folder and link marks', async () => {
      const result = await run('list_directory', {});
      assert.equal(result.output, 'README.md\nimage.bin\nnode_modules/\nsrc/');
      assert.equal((await run('list_directory', { path: 'src' })).output, 'index.ts\nlib/');
      assert.match((await run('list_directory', { path: 'README.md' })).output, /not a directory/);
      await mkdir(path.join(ws, 'empty'));
      assert.equal((await run('list_directory', { path: 'empty' })).output, "('empty' is empty)");
    });
  });

  describe('find_files', () => {
    it('matches names at any depth, paths with **, and alternatives; skips node_modules', async () => {
      assert.equal((await run('find_files', { pattern: '*.ts' })).output, 'src/index.ts\nsrc/lib/util.ts');
      assert.equal((await run('find_files', { pattern: 'src/**/*.ts' })).output, 'src/index.ts\nsrc/lib/util.ts');
      assert.equal((await run('find_files', { pattern: 'lib/*.ts', path: 'src' })).output, 'src/lib/util.ts');
      assert.equal((await run('find_files', { pattern: '*.{md,bin}' })).output, 'README.md\nimage.bin');
      assert.match((await run('find_files', { pattern: '*.py' })).output, /No files match '\*\.py'/);
    });

    it('caps the number of results and says so', async () => {
      const result = await run('find_files', { pattern: '*', max_results: 2 });
      assert.equal(result.output.split('\n').length, 3);
      assert.match(result.output, /\[more matches not shown; limit 2\]/);
    });
  });

  describe('search_text', () => {
    it('returns path:line: text for regex matches, skipping binary files and node_modules', async () => {
      const result = await run('search_text', { pattern: 'export (const|function) \\w+' });
      assert.equal(result.output, 'src/index.ts:1: export const a = 1;\nsrc/index.ts:2: export const b = 2;\nsrc/lib/util.ts:1: export function helper() {');
    });

    it('supports case-insensitive search, a glob filter, a single file and a result cap', async () => {
      assert.equal(
        (await run('search_text', { pattern: 'helper', case_sensitive: false, glob: 'util.ts' })).output,
        'src/lib/util.ts:1: export function helper() {\nsrc/lib/util.ts:2:   return "Helper";',
      );
      assert.equal((await run('search_text', { pattern: 'two', path: 'README.md' })).output, 'README.md:2: line two');
      const capped = await run('search_text', { pattern: 'line', max_results: 1 });
      assert.equal(capped.output, 'README.md:2: line two\n[more matches not shown; limit 1]');
      assert.match((await run('search_text', { pattern: 'zzz' })).output, /No matches for "zzz"/);
    });

    it('refuses an invalid regular expression clearly', async () => {
      const result = await run('search_text', { pattern: '(unclosed' });
      assert.equal(result.ok, false);
      assert.match(result.output, /Invalid regular expression "\(unclosed"/);
    });

    it('stops a catastrophic regular expression at its time cap', async function () {
      this.timeout(10_000);
      await writeFile(path.join(ws, 'evil.txt'), `${'a'.repeat(40)}!\n`);
      const started = Date.now();
      const result = await run('search_text', { pattern: '^(a+)+$', path: 'evil.txt' }, { timeoutMs: 1000 });
      assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
      assert.equal(result.ok, true);
      assert.match(result.output, /stopped at its time limit/);
    });
  });
});

describe('globToRegExp', () => {
  it('implements *, **, ?, classes and braces', () => {
    const cases: Array<[string, string, boolean]> = [
      ['*.ts', 'a.ts', true],
      ['*.ts', 'a/b.ts', false],
      ['**/*.ts', 'b.ts', true],
      ['**/*.ts', 'a/b/c.ts', true],
      ['src/**', 'src/a/b', true],
      ['a?c', 'abc', true],
      ['a?c', 'a/c', false],
      ['[ab]x', 'bx', true],
      ['[!ab]x', 'cx', true],
      ['[!ab]x', 'ax', false],
      ['*.{js,ts}', 'x.ts', true],
      ['*.{js,ts}', 'x.py', false],
      ['a.b', 'axb', false],
      ['(x)', '(x)', true],
    ];
    for (const [glob, candidate, expected] of cases) assert.equal(globToRegExp(glob).test(candidate), expected, `${glob} vs ${candidate}`);
  });

  it('matches bare patterns against the file name only', () => {
    assert.equal(globMatcher('*.md')('docs/a/readme.md'), true);
    assert.equal(globMatcher('docs/*.md')('docs/a/readme.md'), false);
    assert.equal(globMatcher('./docs/**/*.md')('docs/a/readme.md'), true);
  });
});
