import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchVerdict, isReasonLine, SETUP_ERROR_EXIT, type BenchResult } from '../../scripts/benchVerdict.mjs';

// `npm run bench` exits 0 only when every benchmark met its targets, 2 when the only problems were
// setup errors (e.g. no Chromium), else 1, and says for each file what was missed or why it failed.

const met = (file: string): BenchResult => ({ file, code: 0, reasons: [], errorTail: [] });

describe('npm run bench: the verdict', () => {
  it('exits 0 when every file met its targets', () => {
    const { exitCode, lines } = benchVerdict([met('a.bench.ts'), met('b.bench.ts')]);
    assert.equal(exitCode, 0);
    assert.deepEqual(lines, ['all benchmark targets met.']);
  });

  it('exits 1 for a missed target and lists its MISSED and why: lines under its file', () => {
    const { exitCode, lines } = benchVerdict([
      met('a.bench.ts'),
      {
        file: 'cliWidth.bench.ts',
        code: 1,
        reasons: ['fan-out 1.74 (≤ 1.10 MISSED)', "why: Cortex's steps took 1.74 × the floor's"],
        errorTail: ['a warning'],
      },
    ]);
    assert.equal(exitCode, 1);
    const text = lines.join('\n');
    assert.match(text, /cliWidth\.bench\.ts: a target was missed:\n {2}fan-out 1\.74 \(≤ 1\.10 MISSED\)\n {2}why: Cortex's steps/);
    assert.doesNotMatch(text, /a\.bench\.ts/);
    assert.doesNotMatch(text, /a warning/, 'the error output is not shown when the file said what it missed');
  });

  it('a file that failed without saying why shows the end of its error output, and one stopped by a signal says so', () => {
    const { exitCode, lines } = benchVerdict([
      { file: 'crash.bench.ts', code: 1, reasons: [], errorTail: ['Error: the production build failed (exit 1)', '    at buildProductionCli'] },
      { file: 'killed.bench.ts', code: 'SIGKILL', reasons: [], errorTail: [] },
    ]);
    assert.equal(exitCode, 1);
    const text = lines.join('\n');
    assert.match(
      text,
      /crash\.bench\.ts: failed \(exit 1\) without a MISSED or why: line; the end of its error output:\n {2}Error: the production build failed/,
    );
    assert.match(text, /killed\.bench\.ts: was stopped by SIGKILL/);
  });

  it('a file that exits 0 but printed a missed target counts as missed', () => {
    const { exitCode, lines } = benchVerdict([{ file: 'odd.bench.ts', code: 0, reasons: ['ratio 3.1 (target <= 2): MISSED'], errorTail: [] }]);
    assert.equal(exitCode, 1);
    assert.match(lines.join('\n'), /odd\.bench\.ts: a target was missed \(though it exited 0\):\n {2}ratio 3\.1/);
  });

  it('exits 2 when the only problem was a setup error, and 1 when a target was also missed', () => {
    const setupOnly = benchVerdict([met('a.bench.ts'), { file: 'panel.bench.ts', code: SETUP_ERROR_EXIT, reasons: [], errorTail: ['chromium is missing'] }]);
    assert.equal(setupOnly.exitCode, 2);
    assert.match(setupOnly.lines.join('\n'), /panel\.bench\.ts: not run, a setup error .*not a missed target/);
    const both = benchVerdict([
      { file: 'panel.bench.ts', code: SETUP_ERROR_EXIT, reasons: [], errorTail: [] },
      { file: 'x.bench.ts', code: 1, reasons: ['MISSED: y'], errorTail: [] },
    ]);
    assert.equal(both.exitCode, 1);
  });

  it('reason lines: MISSED anywhere, a failed check, and why: lines; not met ones', () => {
    assert.equal(isReasonLine('  ratio 2.58 (target <= 2): MISSED'), true);
    assert.equal(isReasonLine('  ✗ FAILED the panel shows the step — not found'), true);
    assert.equal(isReasonLine("    why: Cortex's whole process took 1.3 ×"), true);
    assert.equal(isReasonLine('  ratio 1.05 (target <= 1.1): met'), false);
    assert.equal(isReasonLine('  ✓ the panel shows the step'), false);
  });
});

describe('npm run bench: the script', () => {
  it('runs each bench/*.bench.ts, lists what was missed, why a file failed, and exits 1; 2 for a setup error only; 0 when all were met', function () {
    this.timeout(60_000);
    const root = resolve(__dirname, '..', '..');
    const dir = mkdtempSync(join(tmpdir(), 'cortex-bench-script-'));
    try {
      cpSync(join(root, 'scripts'), join(dir, 'scripts'), { recursive: true });
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
      mkdirSync(join(dir, 'bench'));
      const bench = (name: string, body: string) => writeFileSync(join(dir, 'bench', `${name}.bench.ts`), body);
      bench('good', "console.log('  ratio 1.0 (target <= 2): met');\n");
      bench('slow', "console.log('  ratio 3.0 (target <= 2): MISSED');\nconsole.log('  why: too slow');\nprocess.exit(1);\n");
      bench('crash', "console.error('Error: no endpoint\\n    at main (crash.bench.ts:1:1)');\nprocess.exit(1);\n");
      bench('setup', "console.error('chromium is missing');\nprocess.exit(2);\n");
      const run = (filter?: string) =>
        spawnSync(process.execPath, [join(dir, 'scripts', 'bench.mjs'), ...(filter ? [filter] : [])], { cwd: dir, encoding: 'utf8' });

      const all = run();
      assert.equal(all.status, 1, all.stdout + all.stderr);
      assert.match(all.stdout, /slow\.bench\.ts: a target was missed:\n {2}ratio 3\.0 \(target <= 2\): MISSED\n {2}why: too slow/);
      assert.match(
        all.stdout,
        /crash\.bench\.ts: failed \(exit 1\) without a MISSED or why: line; the end of its error output:\n {2}Error: no endpoint\n\n/,
        'the stack frames are left out',
      );
      assert.match(all.stdout, /setup\.bench\.ts: not run, a setup error/);
      assert.doesNotMatch(all.stdout, /good\.bench\.ts:/);
      assert.match(all.stderr, /Error: no endpoint/, 'the error output is passed through as it comes');

      assert.equal(run('setup').status, 2);
      const good = run('good');
      assert.equal(good.status, 0);
      assert.match(good.stdout, /all benchmark targets met\./);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
