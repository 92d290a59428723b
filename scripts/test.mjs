#!/usr/bin/env node
// `npm test`: type-check, lint, unit + integration tests (mocha, plain Node), then the real-VS-Code
// end-to-end suite (code-server + Playwright). Stops at the first failing stage.
//
// Each stage's full output goes to test-artifacts/<stage>.log; the terminal gets a short summary
// per stage ending in "N passed, M failed", the full output only when a stage fails, and the
// progress lines of long stages as they happen. CORTEX_TEST_VERBOSE=1 streams everything.
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnInGroup } from './childGroup.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const artifacts = join(root, 'test-artifacts');
const reporter = join(root, 'test', 'support', 'summaryReporter.cjs');
const verbose = process.env.CORTEX_TEST_VERBOSE === '1';

// A stage that prints no "N passed, M failed" line of its own counts as one check.
const stages = [
  { name: 'type-check', log: 'type-check', args: ['scripts/typecheck.mjs'] },
  { name: 'lint', log: 'lint', args: ['scripts/lint.mjs'] },
  {
    name: 'unit + integration (mocha)',
    log: 'unit-integration',
    args: ['node_modules/mocha/bin/mocha.js', '--reporter', reporter, 'test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
  },
  // Its progress ("e2e: …", the code-server install, each scenario's result) is shown live: it takes minutes.
  {
    name: 'end-to-end in code-server',
    log: 'e2e',
    args: ['test/e2e/runE2e.mjs'],
    live: /^(e2e:|Installing code-server|  …|  \(set CORTEX_CACHE|code-server@|\s+[✔✓] |\s+\d+\) )/,
  },
];

const SUMMARY = /^(?:\w+: )?(\d+) passed, (\d+) failed/;

/**
 * The environment as the user's shell has it: npm puts its own folders first on PATH
 * (node_modules/.bin, which holds the bundled Node 24 as `node`, and node-gyp-bin), so without
 * this every `node` a test's commands run would be Cortex's own Node, not the user's, and a folder
 * the sandbox does not show when the checkout lies under /tmp. The tests start Node by
 * process.execPath, never by name.
 */
function userEnvironment(env) {
  const npmOwn = (entry) => /[\\/]node_modules[\\/]\.bin$/.test(entry) || /[\\/]node-gyp-bin$/.test(entry);
  return {
    ...env,
    PATH: (env.PATH ?? '')
      .split(':')
      .filter((entry) => entry && !npmOwn(entry))
      .join(':'),
  };
}

function runStage(stage) {
  return new Promise((resolve) => {
    const logFile = join(artifacts, `${stage.log}.log`);
    const log = createWriteStream(logFile);
    const lines = [];
    let pending = '';
    const onText = (text) => {
      log.write(text);
      if (verbose) process.stdout.write(text);
      pending += text;
      const parts = pending.split('\n');
      pending = parts.pop();
      for (const line of parts) {
        lines.push(line);
        // Colour codes (mocha colours its output under CI) are dropped before matching.
        const plain = line.replace(/\x1b\[[0-9;]*m/g, '');
        if (!verbose && stage.live?.test(plain)) console.log(`  ${plain.trim()}`);
      }
    };
    // Its own process group: stopping `npm test` stops the stage and everything it started.
    const child = spawnInGroup(process.execPath, stage.args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: userEnvironment(process.env) });
    child.stdout.setEncoding('utf8').on('data', onText);
    child.stderr.setEncoding('utf8').on('data', onText);
    child.on('error', (error) => onText(`could not start ${stage.args[0]}: ${error.message}\n`));
    child.on('close', (code, signal) => {
      if (pending) lines.push(pending);
      log.end(() => resolve({ code: code ?? signal, lines, logFile }));
    });
  });
}

function countsOf(lines, ok) {
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = SUMMARY.exec(lines[i].replace(/\x1b\[[0-9;]*m/g, '').trim());
    if (match) return { passed: Number(match[1]), failed: Number(match[2]) };
  }
  return ok ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 };
}

mkdirSync(artifacts, { recursive: true });
const only = process.env.CORTEX_TEST_STAGES?.split(',');
const total = { passed: 0, failed: 0 };
const started = Date.now();
for (const stage of stages) {
  if (only && !only.some((prefix) => stage.name.startsWith(prefix))) {
    console.log(`- ${stage.name}: not selected by CORTEX_TEST_STAGES=${process.env.CORTEX_TEST_STAGES}`);
    continue;
  }
  console.log(`- ${stage.name} …`);
  const stageStarted = Date.now();
  const { code, lines, logFile } = await runStage(stage);
  const seconds = ((Date.now() - stageStarted) / 1000).toFixed(1);
  const counts = countsOf(lines, code === 0);
  // A non-zero exit with every test passed (a crash after the run) still fails the stage.
  if (code !== 0 && counts.failed === 0) counts.failed = 1;
  total.passed += counts.passed;
  total.failed += counts.failed;
  if (code !== 0) {
    if (!verbose) console.log(lines.join('\n'));
    console.log(`\n${stage.name} FAILED after ${seconds} s (exit ${code}); full output in ${logFile}`);
    console.log(`${stage.name}: ${counts.passed} passed, ${counts.failed} failed`);
    break;
  }
  console.log(`  ${stage.name}: ${counts.passed} passed, ${counts.failed} failed in ${seconds} s (log: test-artifacts/${stage.log}.log)`);
}
console.log(`\nnpm test: ${((Date.now() - started) / 1000).toFixed(0)} s in all`);
console.log(`${total.passed} passed, ${total.failed} failed`);
process.exit(total.failed ? 1 : 0);
