#!/usr/bin/env node
// `npm run typecheck`: tsc over each layer's tsconfig, so the core is checked without DOM types
// and the webview without Node types, then everything together (host, tests, benchmarks).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const configs = ['tsconfig.core.json', 'tsconfig.webview.json', 'tsconfig.json'];
let failed = 0;
for (const config of configs) {
  const result = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config, '--noEmit'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    failed++;
    console.log(`typecheck: ${config} has errors (above)`);
  } else console.log(`typecheck: ${config} ok`);
}
console.log(`\n${configs.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
