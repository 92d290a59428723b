#!/usr/bin/env node
// The @vscode/test-electron suite: the extension inside desktop VS Code's own extension host, for
// machines that can download VS Code (a developer machine, hosted CI). The offline machines this
// project is built on cannot, so `npm test` runs the code-server suite (test/e2e) instead; here a
// failed download is a loud failure with its reason, never a silent pass.
import { downloadAndUnzipVSCode, runTests } from '@vscode/test-electron';
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = join(root, 'out', 'electron');

const built = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(1);
await build({
  entryPoints: { index: join(root, 'test', 'electron', 'suite', 'index.ts'), 'runTask.test': join(root, 'test', 'electron', 'suite', 'runTask.test.ts') },
  outdir: out,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  external: ['vscode', 'mocha'],
  logLevel: 'warning',
});

const workspace = mkdtempSync(join(tmpdir(), 'cortex-electron-ws-'));
mkdirSync(join(workspace, '.vscode'), { recursive: true });
writeFileSync(join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'security.workspace.trust.enabled': false }));

let vscodeExecutablePath;
try {
  vscodeExecutablePath = await downloadAndUnzipVSCode(process.env.CORTEX_VSCODE_VERSION ?? 'stable');
} catch (error) {
  console.error(`\nelectron suite FAILED: desktop VS Code could not be downloaded (${error.message}).`);
  console.error('This suite needs internet access; on offline machines run `npm run test:e2e` (code-server).');
  console.log('\n0 passed, 1 failed');
  process.exit(1);
}
try {
  await runTests({
    vscodeExecutablePath,
    extensionDevelopmentPath: root,
    extensionTestsPath: join(out, 'index.js'),
    launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust'],
  });
} catch (error) {
  console.error(`\nelectron suite FAILED: ${error.message ?? error}`);
  process.exit(1);
}
