import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { processIsAlive } from '../../src/core/resume/processState';

// Stopping an npm script (npm test, npm run bench) stops everything under it: the script runs
// its stage with scripts/childGroup.mjs, which passes the stop signal to the stage's whole group.

const CHILD_GROUP = resolve(__dirname, '..', '..', 'scripts', 'childGroup.mjs');

describe('npm scripts stop what they started', () => {
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`${signal} to the script stops its stage and the stage's own children, and the script exits as signalled`, async function () {
      this.timeout(20_000);
      const dir = mkdtempSync(join(tmpdir(), 'cortex-group-'));
      const pidFile = join(dir, 'grandchild.pid');
      // The stage starts a long-running child of its own (as mocha starts code-server) and waits.
      const stage = `require('child_process').spawn('sleep', ['30'], { stdio: 'ignore' }).on('spawn', function () { require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(this.pid)); }); setInterval(() => {}, 1000);`;
      const script = `import { runInGroup } from ${JSON.stringify(CHILD_GROUP)}; await runInGroup(process.execPath, ['-e', ${JSON.stringify(stage)}], { stdio: 'ignore' });`;
      const npmScript = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
      const exited = new Promise<{ code: number | null; signal: string | null }>((done) => npmScript.on('exit', (code, sig) => done({ code, signal: sig })));
      for (let i = 0; i < 400 && !existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 25));
      const grandchild = Number(readFileSync(pidFile, 'utf8'));
      assert.equal(processIsAlive(grandchild), true);
      npmScript.kill(signal);
      const { code } = await exited;
      assert.equal(code, 128 + { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[signal]);
      for (let i = 0; i < 100 && processIsAlive(grandchild); i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(processIsAlive(grandchild), false, 'the stage’s child was stopped with it');
    });
  }
});
