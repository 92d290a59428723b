#!/usr/bin/env node
// `npm run bench`: runs every bench/*.bench.ts (each prints its measurements and the baseline
// measured in the same run; `npm run bench -- NAME` runs the files whose names contain NAME).
// A benchmark exits 0 when its targets are met, 2 when something it needs is not set up (e.g.
// Chromium for the panel; bench/support/runBenchmark.ts, `setupError`), and otherwise 1 (a missed
// target, or an error). At the end every file that did not meet its targets is listed with its
// MISSED and `why:` lines (or, when it printed none, the end of its error output). Exits 0 when
// every target was met, 2 when the only problems were setup errors, else 1 (scripts/benchVerdict.mjs).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchVerdict, isReasonLine } from './benchVerdict.mjs';
import { runInGroup } from './childGroup.mjs';

const ERROR_TAIL_LINES = 5;
// A thrown error's stack frames: the tail shows its message, not where it was thrown.
const STACK_FRAME = /^\s+at /;
const filter = process.argv[2];
const files = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts') && (!filter || f.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error('no benchmarks found in bench/');
  process.exit(1);
}

/** Hands text on to `write` and keeps its complete lines for `onLine`. */
function lineCollector(write, onLine) {
  let pending = '';
  return {
    collect(text) {
      write(text);
      const lines = (pending + text).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    },
    end() {
      if (pending) this.collect('\n');
    },
  };
}

const results = [];
for (const file of files) {
  console.log(`\n##### ${file}`);
  const reasons = [];
  const errorTail = [];
  const out = lineCollector(
    (text) => process.stdout.write(text),
    (line) => isReasonLine(line) && reasons.push(line.trim()),
  );
  const err = lineCollector(
    (text) => process.stderr.write(text),
    (line) => line.trim() && !STACK_FRAME.test(line) && errorTail.push(line) > ERROR_TAIL_LINES && errorTail.shift(),
  );
  // Its temporary files (workspaces, traces, those of the processes it starts) in one folder, removed after it.
  const scratch = mkdtempSync(join(tmpdir(), 'cortex-bench-'));
  // In a group of its own, so stopping `npm run bench` stops the benchmark and what it started.
  const { code } = await runInGroup(process.execPath, ['--expose-gc', '--import', 'tsx', `bench/${file}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TMPDIR: scratch },
    onStdout: out.collect.bind(out),
    onStderr: err.collect.bind(err),
  });
  rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
  out.end();
  err.end();
  results.push({ file, code, reasons, errorTail });
}
const { exitCode, lines } = benchVerdict(results);
for (const line of lines) console.log(line);
process.exit(exitCode);
