import assert from 'node:assert/strict';
import { diffLines, MAX_EDIT_DISTANCE, splitLines } from '../../../src/core/checkpoints/lineDiff';
import { changedLineCounts } from '../../../src/core/checkpoints/lineStats';
import { countChangedLines, unifiedDiff } from '../../../src/core/checkpoints/unifiedDiff';
import { seededRandom } from '../../support/seededRandom';

/** Length of a longest common subsequence, by dynamic programming (the reference for minimality). */
function lcsLength(a: readonly string[], b: readonly string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = a[i - 1] === b[j - 1] ? diagonal + 1 : Math.max(row[j], row[j - 1]);
      diagonal = above;
    }
  }
  return row[b.length];
}

/** Applies a unified diff to `oldText` the way `patch` would (hunks in order, context checked). */
function applyPatch(oldText: string, patch: string): string {
  const old = splitLines(oldText);
  const out: string[] = [];
  let at = 0;
  const lines = patch.split('\n');
  lines.pop();
  let i = 2;
  while (i < lines.length) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@$/.exec(lines[i++]);
    assert.ok(header, `hunk header expected, got ${lines[i - 1]}`);
    const start = Number(header[1]) - (header[2] === '0' ? 0 : 1);
    while (at < start) out.push(old[at++]);
    while (i < lines.length && !lines[i].startsWith('@@')) {
      const line = lines[i++];
      const noNewline = lines[i] === '\\ No newline at end of file';
      if (noNewline) i++;
      const text = line.slice(1) + (noNewline ? '' : '\n');
      if (line[0] === ' ' || line[0] === '-') {
        assert.equal(old[at], text, `context or removed line ${at + 1} does not match`);
        at++;
      }
      if (line[0] === ' ' || line[0] === '+') out.push(text);
    }
  }
  while (at < old.length) out.push(old[at++]);
  return out.join('');
}

function randomText(random: () => number, lines: number, alphabet = 'abcde'): string {
  let text = '';
  for (let i = 0; i < lines; i++) text += `${alphabet[Math.floor(random() * alphabet.length)]}\n`;
  return random() < 0.3 ? text.slice(0, -1) : text;
}

describe('line diff and unified diff', () => {
  it('splits lines keeping their terminators, the last one may have none', () => {
    assert.deepEqual(splitLines('a\nb\n'), ['a\n', 'b\n']);
    assert.deepEqual(splitLines('a\nb'), ['a\n', 'b']);
    assert.deepEqual(splitLines(''), []);
    assert.deepEqual(splitLines('\n\n'), ['\n', '\n']);
  });

  it('prints the format of diff -u: headers, @@ ranges, 3 lines of context', () => {
    const before = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n';
    const after = 'one\ntwo\nthree\nFOUR\nfive\nsix\nseven\neight\nnine\n';
    assert.equal(
      unifiedDiff(before, after, { oldLabel: 'a/f.txt', newLabel: 'b/f.txt' }),
      ['--- a/f.txt', '+++ b/f.txt', '@@ -1,8 +1,9 @@', ' one', ' two', ' three', '-four', '+FOUR', ' five', ' six', ' seven', ' eight', '+nine', ''].join(
        '\n',
      ),
    );
  });

  it('splits far-apart changes into separate hunks and marks a missing final newline', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`).join('');
    const after = before.replace('line 2\n', 'line two\n').replace('line 19\nline 20\n', 'line 19\nline 20');
    const diff = unifiedDiff(before, after, { oldLabel: 'a/x', newLabel: 'b/x' });
    assert.deepEqual(
      diff.split('\n').filter((l) => l.startsWith('@@')),
      ['@@ -1,5 +1,5 @@', '@@ -17,4 +17,4 @@'],
    );
    assert.match(diff, /-line 20\n\+line 20\n\\ No newline at end of file\n$/);
  });

  it('shows a new file from /dev/null as -0,0 and a deleted one to +0,0', () => {
    assert.equal(unifiedDiff('', 'a\nb\n', { oldLabel: '/dev/null', newLabel: 'b/n' }), '--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+a\n+b\n');
    assert.equal(unifiedDiff('a\n', '', { oldLabel: 'a/n', newLabel: '/dev/null' }), '--- a/n\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n');
    assert.equal(unifiedDiff('same\n', 'same\n', { oldLabel: 'a', newLabel: 'b' }), '');
  });

  it('finds a shortest edit script and a patch that rebuilds the new text (300 random pairs)', () => {
    const random = seededRandom(22);
    for (let round = 0; round < 300; round++) {
      const before = randomText(random, Math.floor(random() * 30));
      const after = randomText(random, Math.floor(random() * 30));
      const a = splitLines(before);
      const b = splitLines(after);
      const counts = countChangedLines(before, after);
      const common = lcsLength(a, b);
      assert.equal(counts.removed, a.length - common, `removed, round ${round}`);
      assert.equal(counts.added, b.length - common, `added, round ${round}`);
      const patch = unifiedDiff(before, after, { oldLabel: 'a/f', newLabel: 'b/f' });
      assert.equal(before === after ? before : applyPatch(before, patch), after, `round ${round}:\n${patch}`);
      for (const run of diffLines(a, b)) if (run.kind === 'equal') assert.deepEqual(a.slice(run.aStart, run.aEnd), b.slice(run.bStart, run.bEnd));
    }
  });

  it('past the edit-distance bound it replaces the middle as a whole, still a correct diff', () => {
    const before = Array.from({ length: MAX_EDIT_DISTANCE + 10 }, (_, i) => `old ${i}\n`).join('');
    const after = Array.from({ length: MAX_EDIT_DISTANCE + 10 }, (_, i) => `new ${i}\n`).join('');
    const patch = unifiedDiff(before, after, { oldLabel: 'a/f', newLabel: 'b/f' });
    assert.equal(applyPatch(before, patch), after);
  });

  it('counts changed lines of large files from the differing middle, the same as a full diff', () => {
    const random = seededRandom(7);
    const base = Array.from({ length: 5000 }, (_, i) => `const value${i} = ${Math.floor(random() * 1000)};\n`).join('');
    for (let round = 0; round < 20; round++) {
      const lines = splitLines(base);
      const at = Math.floor(random() * lines.length);
      lines.splice(at, Math.floor(random() * 5), ...Array.from({ length: Math.floor(random() * 5) }, (_, k) => `inserted ${round} ${k}\n`));
      const edited = lines.join('');
      assert.deepEqual(changedLineCounts(Buffer.from(base), Buffer.from(edited)), countChangedLines(base, edited), `round ${round}`);
    }
    assert.deepEqual(changedLineCounts(Buffer.from('a\nb'), Buffer.from('a\nb\n')), { added: 1, removed: 1 });
    assert.deepEqual(changedLineCounts(Buffer.from('same'), Buffer.from('same')), { added: 0, removed: 0 });
    assert.equal(changedLineCounts(Buffer.from('text\n'), Buffer.from([0x50, 0x00, 0x4b])), undefined, 'binary content has no line counts');
  });
});
