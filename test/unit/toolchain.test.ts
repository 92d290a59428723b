import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanNpmEnvironment, node24Path } from '../../scripts/ensureCodeServer.mjs';

describe('toolchain', () => {
  it('runs the tests on the Node major the extension host uses (>= 22)', () => {
    const major = Number(process.versions.node.split('.')[0]);
    assert.ok(major >= 22, `tests run on Node ${process.versions.node}`);
  });

  it("gives code-server's npm install none of the outer npm's variables (whose user agent names the machine's Node 20)", () => {
    const outer = {
      PATH: '/usr/bin',
      HOME: '/home/u',
      npm_config_user_agent: 'npm/11 node/v20.20.2 linux x64',
      npm_node_execpath: '/usr/bin/node',
      NPM_CONFIG_LOGLEVEL: 'warn',
    };
    const env = cleanNpmEnvironment(outer, node24Path());
    assert.equal(env.npm_config_user_agent, undefined);
    assert.equal(env.npm_node_execpath, undefined);
    assert.equal(env.NPM_CONFIG_LOGLEVEL, undefined);
    assert.equal(env.HOME, '/home/u');
    assert.ok(env.PATH!.startsWith(`${join(node24Path(), '..')}:`), `Node 24 first on PATH: ${env.PATH}`);
    assert.ok(env.npm_config_nodedir, 'native addons are built against Node 24 headers');
  });
});

describe('npm scripts and stop signals', () => {
  // npm runs a script as `sh -c LINE` and, when it is stopped (Ctrl-C, SIGTERM from CI), signals
  // only that shell: a shell that waits on its program dies and leaves the program running. With
  // `exec` the shell becomes the program (scripts/node24.sh execs Node in turn), so the signal
  // reaches it, and test.mjs and bench.mjs pass it on to their stage's process group.
  it('every npm script runs its program with exec', () => {
    const scripts = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const without = Object.entries(scripts).filter(([, line]) => !line.startsWith('exec '));
    assert.deepEqual(without, []);
  });
});
