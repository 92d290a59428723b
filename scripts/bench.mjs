#!/usr/bin/env node
// `npm run bench`: runs every bench/*.bench.ts (each prints its measurements and the baseline
// measured in the same run) and exits non-zero if any reports a missed target.
import { readdirSync } from 'node:fs';
import { runInGroup } from './childGroup.mjs';

const filter = process.argv[2];
const files = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts') && (!filter || f.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error('no benchmarks found in bench/');
  process.exit(1);
}
let failed = 0;
for (const file of files) {
  console.log(`\n##### ${file}`);
  // In a group of its own, so stopping `npm run bench` stops the benchmark and what it started.
  const { code } = await runInGroup(process.execPath, ['--expose-gc', '--import', 'tsx', `bench/${file}`], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (code !== 0) failed++;
}
console.log(failed ? `\n${failed} benchmark file(s) missed a target or failed.` : '\nall benchmark targets met.');
process.exit(failed ? 1 : 0);
