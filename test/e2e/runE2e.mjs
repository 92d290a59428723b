#!/usr/bin/env node
// The real-VS-Code end-to-end suite: packages the extension as a .vsix, installs it into code-server
// (VS Code's own workbench and extension host), and drives it in Chromium with playwright-core,
// against the scripted OpenAI-compatible server on 127.0.0.1. Scenarios: test/e2e/*.e2e.ts (mocha).
//
// Offline machines cannot download desktop VS Code for @vscode/test-electron, hence code-server.
// A missing prerequisite is a failure with its reason, never a silent skip.
// CORTEX_E2E_DEV=1 packages an unminified development build (easier stacks when debugging).
// CORTEX_E2E_GREP=<pattern> runs only matching scenarios. CORTEX_E2E_KEEP=1 keeps the temp folders.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCodeServer } from '../../scripts/ensureCodeServer.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const started = Date.now();
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

function fail(reason) {
  console.error(`\ne2e: FAILED before any scenario ran: ${reason}`);
  console.log('\n0 passed, 1 failed');
  process.exit(1);
}

// 1. Prerequisites.
if (Number(process.versions.node.split('.')[0]) < 22) fail(`Node ${process.versions.node} is too old; run through \`npm run test:e2e\` (scripts/node24.mjs).`);
const chromiumPath = process.env.CORTEX_CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(chromiumPath)) fail(`Chromium is missing at ${chromiumPath}: apt-get install -y chromium (or set CORTEX_CHROMIUM). .ci/run installs it.`);
try {
  require.resolve('playwright-core');
} catch {
  fail('playwright-core is not installed: run npm ci.');
}
let step = Date.now();
try {
  const dir = await ensureCodeServer();
  console.log(`e2e: code-server ready in ${dir} (${seconds(step)})`);
} catch (error) {
  fail(error.message);
}

// 2. The .vsix, built the way it ships.
step = Date.now();
const dev = process.env.CORTEX_E2E_DEV === '1';
const vsix = join(root, 'cortex.vsix');
const packaged = spawnSync(process.execPath, [join(root, 'scripts', 'package.mjs'), ...(dev ? ['--dev'] : [])], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, CORTEX_VSIX: 'cortex.vsix' },
});
if (packaged.status !== 0) fail(`packaging the extension failed (exit ${packaged.status ?? packaged.signal}); see above.`);
console.log(`e2e: packaged ${vsix}${dev ? ' (development build)' : ''} in ${seconds(step)}`);

// 3. The scenarios.
step = Date.now();
const mochaArgs = [
  join(root, 'node_modules', 'mocha', 'bin', 'mocha.js'),
  '--no-config',
  '--node-option',
  'import=tsx',
  '--extension',
  'ts',
  '--require',
  join(root, 'test', 'e2e', 'support', 'hooks.ts'),
  // After hooks.ts, so its folder is removed once code-server has stopped.
  '--require',
  join(root, 'test', 'support', 'scratchTmpdir.ts'),
  '--reporter',
  join(root, 'test', 'support', 'summaryReporter.cjs'),
  '--timeout',
  '240000',
  '--slow',
  '30000',
  ...(process.env.CORTEX_E2E_GREP ? ['--grep', process.env.CORTEX_E2E_GREP] : []),
  'test/e2e/**/*.e2e.ts',
];
const result = spawnSync(process.execPath, mochaArgs, { cwd: root, stdio: 'inherit', env: { ...process.env, CORTEX_E2E_VSIX: vsix } });
console.log(`e2e: scenarios took ${seconds(step)}; total ${seconds(started)}`);
process.exit(result.status ?? 1);
