#!/usr/bin/env node
// `npm run bench`: runs every bench/*.bench.ts (each prints its measurements and the baseline
// measured in the same run; `npm run bench -- NAME` runs the files whose names contain NAME).
// A benchmark exits 0 when its targets are met, 2 when something it needs is not set up (e.g.
// Chromium for the panel; bench/support/runBenchmark.ts, `setupError`), and otherwise 1 (a missed
// target, or an error). At the end every file that did not meet its targets is listed with its
// MISSED and `why:` lines. Exits 0 when every target was met, 2 when the only problems were
// setup errors, else 1.
import { readdirSync } from 'node:fs';
import { runInGroup } from './childGroup.mjs';

const SETUP_ERROR = 2;
const filter = process.argv[2];
const files = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts') && (!filter || f.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error('no benchmarks found in bench/');
  process.exit(1);
}
const missed = [];
const setup = [];
for (const file of files) {
  console.log(`\n##### ${file}`);
  const reasons = [];
  let pending = '';
  const collect = (text) => {
    process.stdout.write(text);
    const lines = (pending + text).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (/MISSED|^\s*why:/.test(line)) reasons.push(line.trim());
  };
  // In a group of its own, so stopping `npm run bench` stops the benchmark and what it started.
  const { code } = await runInGroup(process.execPath, ['--expose-gc', '--import', 'tsx', `bench/${file}`], {
    stdio: ['ignore', 'pipe', 'inherit'],
    onStdout: collect,
  });
  if (pending) collect('\n');
  if (code === SETUP_ERROR) setup.push(file);
  else if (code !== 0) missed.push({ file, reasons });
}
if (missed.length === 0 && setup.length === 0) {
  console.log('\nall benchmark targets met.');
  process.exit(0);
}
for (const { file, reasons } of missed) {
  console.log(`\n${file}: a target was missed or the benchmark failed${reasons.length ? ':' : ' (see its output above)'}`);
  for (const reason of reasons) console.log(`  ${reason}`);
}
for (const file of setup) console.log(`\n${file}: not run, a setup error (see its message above); not a missed target`);
process.exit(missed.length > 0 ? 1 : SETUP_ERROR);
