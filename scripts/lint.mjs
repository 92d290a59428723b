#!/usr/bin/env node
// `npm run lint`: the rules a machine checks, each a stage that counts as one check:
//   eslint            type-aware typescript-eslint over sources, tests and benchmarks
//   layers            dependency-cruiser's layer rules (.dependency-cruiser.cjs)
//   format            prettier --check (run `npm run format` to fix)
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (path) => join(root, 'node_modules', ...path.split('/'));
const checks = [
  ['eslint', [bin('eslint/bin/eslint.js'), '--max-warnings', '0', '.']],
  ['layers', [bin('dependency-cruiser/bin/dependency-cruiser.mjs'), '--config', '.dependency-cruiser.cjs', 'src', 'webview', 'test', 'bench']],
  ['format', [bin('prettier/bin/prettier.cjs'), '--check', '--log-level', 'warn', '.']],
];
let failed = 0;
for (const [name, args] of checks) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status === 0) console.log(`lint: ${name} ok`);
  else {
    failed++;
    console.log(`lint: ${name} FAILED (above)`);
  }
}
console.log(`\n${checks.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
