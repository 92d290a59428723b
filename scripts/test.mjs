#!/usr/bin/env node
// `npm test`: type-check, unit + integration tests (mocha, plain Node), then the real-VS-Code
// end-to-end suite (code-server + Playwright). Stops at the first failing stage.
import { spawnSync } from 'node:child_process';

const stages = [
  ['type-check', ['node_modules/typescript/bin/tsc', '-p', '.', '--noEmit']],
  ['unit + integration (mocha)', ['node_modules/mocha/bin/mocha.js', 'test/unit/**/*.test.ts', 'test/integration/**/*.test.ts']],
  ['end-to-end in code-server', ['test/e2e/runE2e.mjs']],
];
const only = process.env.CORTEX_TEST_STAGES?.split(',');
for (const [name, args] of stages) {
  if (only && !only.some((s) => name.startsWith(s))) {
    console.log(`\n=== ${name}: not selected by CORTEX_TEST_STAGES=${process.env.CORTEX_TEST_STAGES} ===`);
    continue;
  }
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    console.error(`\n${name} FAILED after ${seconds}s (exit ${result.status ?? result.signal}).`);
    process.exit(1);
  }
  console.log(`=== ${name}: ok in ${seconds}s ===`);
}
