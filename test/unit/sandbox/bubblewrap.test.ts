import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { bubblewrapArgs, existingInside } from '../../../src/core/sandbox/bubblewrap';
import { chooseSandbox, sandboxNotice } from '../../../src/core/sandbox/sandboxChoice';
import { processesMatching, requireBubblewrap, runIn, SANDBOXED, tempWorkspace, UNSANDBOXED, waitUntil } from './sandboxSupport';

// The real bubblewrap sandbox, checked by its effects on this machine: what a command can write,
// reach and leave behind.

describe('bubblewrap sandbox (real)', function () {
  this.timeout(30_000);
  let ws: string;
  let cleanup: () => Promise<void>;
  before(requireBubblewrap);
  beforeEach(async () => {
    ({ ws, cleanup } = await tempWorkspace());
  });
  afterEach(async () => cleanup());

  it('the workspace is writable', async () => {
    const result = await runIn(ws, 'echo hi > made.txt', SANDBOXED);
    assert.equal(result.ok, true, result.output);
    assert.equal(readFileSync(path.join(ws, 'made.txt'), 'utf8'), 'hi\n');
  });

  it('a write outside the workspace does not reach the disk: system folders and the home folder are read-only, /tmp is an empty stand-in', async () => {
    const tag = randomBytes(4).toString('hex');
    const outsideDir = mkdtempSync(path.join(existsSync('/var/tmp') ? '/var/tmp' : os.homedir(), 'cortex-sbx-outside-'));
    const targets = [path.join(outsideDir, `a-${tag}`), path.join(path.dirname(ws), `sibling-${tag}`), path.join(os.homedir(), `cortex-sbx-home-${tag}`)];
    try {
      for (const target of targets) {
        await runIn(ws, `echo pwned > ${target}; cat ${target}`, SANDBOXED);
        assert.equal(existsSync(target), false, `${target} was written through the sandbox`);
      }
      const system = await runIn(ws, `touch /etc/cortex-sbx-${tag}`, SANDBOXED);
      assert.match(system.output, /Read-only file system/);
      assert.equal(existsSync(`/etc/cortex-sbx-${tag}`), false);
    } finally {
      rmSync(outsideDir, { recursive: true, force: true });
      for (const target of targets) rmSync(target, { force: true });
    }
  });

  describe('the home folder: visible read-only, its secrets hidden', () => {
    let home: string;
    let saved: NodeJS.ProcessEnv;
    beforeEach(() => {
      saved = { ...process.env };
      // Not under /tmp: the sandbox replaces /tmp with an empty one.
      home = mkdtempSync(path.join(existsSync('/var/tmp') ? '/var/tmp' : os.homedir(), 'cortex-sbx-home-'));
      mkdirSync(path.join(home, '.local/bin'), { recursive: true });
      writeFileSync(path.join(home, '.local/bin/mytool'), '#!/bin/sh\necho "mytool ran from $0"\n', { mode: 0o755 });
      mkdirSync(path.join(home, '.ssh'));
      writeFileSync(path.join(home, '.ssh/id_rsa'), 'PRIVATE-KEY-cortex-test');
      writeFileSync(path.join(home, '.npmrc'), '//registry.npmjs.org/:_authToken=npm-cortex-test-token');
      writeFileSync(path.join(home, '.bash_history'), 'export TOKEN=history-cortex-test');
      mkdirSync(path.join(home, 'notes'));
      writeFileSync(path.join(home, 'notes/extra-secret.txt'), 'extra-cortex-test');
      writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = visible-config\n');
      process.env.HOME = home;
      process.env.PATH = `${path.join(home, '.local/bin')}:${process.env.PATH}`;
    });
    afterEach(() => {
      process.env = saved;
      rmSync(home, { recursive: true, force: true });
    });

    it('a tool installed under the home folder runs; its other files are readable', async () => {
      const tool = await runIn(ws, 'mytool', SANDBOXED, { approvedByPerson: true });
      assert.equal(tool.ok, true, tool.output);
      assert.match(tool.output, new RegExp(`mytool ran from ${path.join(home, '.local/bin/mytool')}`));
      const config = await runIn(ws, `cat ${path.join(home, '.gitconfig')}`, SANDBOXED, { approvedByPerson: true });
      assert.match(config.output, /visible-config/);
    });

    it('keys, tokens and histories read as missing or empty, and a setting hides more', async () => {
      const read = `cat ${home}/.ssh/id_rsa; ls -A ${home}/.ssh; cat ${home}/.npmrc ${home}/.bash_history ${home}/notes/extra-secret.txt; echo end`;
      const plain = await runIn(ws, read, UNSANDBOXED, { approvedByPerson: true });
      // The same command unsandboxed shows the test can fail.
      assert.match(plain.output, /PRIVATE-KEY-cortex-test[\s\S]*npm-cortex-test-token[\s\S]*history-cortex-test[\s\S]*extra-cortex-test/);
      const hidden = await runIn(ws, read, { ...SANDBOXED, hiddenPaths: ['~/notes/extra-secret.txt'] }, { approvedByPerson: true });
      assert.match(hidden.output, /end/);
      assert.match(hidden.output, /id_rsa: No such file or directory/);
      assert.doesNotMatch(hidden.output, /cortex-test/);
      const unlisted = await runIn(ws, `cat ${home}/notes/extra-secret.txt`, SANDBOXED, { approvedByPerson: true });
      assert.match(unlisted.output, /extra-cortex-test/);
    });

    it('nothing under the home folder can be written, hidden places included', async () => {
      const result = await runIn(ws, `touch ${home}/new-file; echo key > ${home}/.ssh/authorized_keys; echo x >> ${home}/.npmrc; echo done`, SANDBOXED, {
        approvedByPerson: true,
      });
      assert.match(result.output, /new-file.*Read-only file system/);
      assert.equal(existsSync(path.join(home, 'new-file')), false);
      assert.equal(existsSync(path.join(home, '.ssh/authorized_keys')), false);
      assert.equal(readFileSync(path.join(home, '.npmrc'), 'utf8'), '//registry.npmjs.org/:_authToken=npm-cortex-test-token');
    });

    it('a workspace inside the home folder stays writable, and so does the home opened as the workspace, its secrets still hidden', async () => {
      const inner = path.join(home, 'project');
      mkdirSync(inner);
      const nested = await runIn(inner, `echo made > made.txt; cat ${home}/.ssh/id_rsa; echo end`, SANDBOXED, { approvedByPerson: true });
      assert.match(nested.output, /end/);
      assert.doesNotMatch(nested.output, /PRIVATE-KEY/);
      assert.equal(readFileSync(path.join(inner, 'made.txt'), 'utf8'), 'made\n');
      const whole = await runIn(home, 'echo made > top.txt; cat .ssh/id_rsa .npmrc; echo end', SANDBOXED, { approvedByPerson: true });
      assert.match(whole.output, /end/);
      assert.doesNotMatch(whole.output, /cortex-test/);
      assert.equal(readFileSync(path.join(home, 'top.txt'), 'utf8'), 'made\n');
    });
  });

  it('has no capabilities, even as root: it cannot remount / read-write', async () => {
    const marker = `/etc/cortex-sbx-remount-${randomBytes(4).toString('hex')}`;
    try {
      const result = await runIn(ws, `mount -o remount,rw,bind / 2>&1; touch ${marker}; grep CapEff /proc/self/status`, SANDBOXED);
      assert.equal(existsSync(marker), false, `the sandbox escaped: ${result.output}`);
      assert.match(result.output, /CapEff:\s+0+\b/);
    } finally {
      rmSync(marker, { force: true });
    }
  });

  it('has no network unless cortex.sandbox.network is true (a 127.0.0.1 listener of the host)', async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const connect = `bash -c 'echo hello > /dev/tcp/127.0.0.1/${port}' && echo connected`;
    try {
      const off = await runIn(ws, connect, SANDBOXED);
      assert.equal(off.ok, false, off.output);
      assert.doesNotMatch(off.output, /connected/);
      assert.equal(connections, 0);
      const on = await runIn(ws, connect, { ...SANDBOXED, network: true });
      assert.equal(on.ok, true, on.output);
      assert.ok(await waitUntil(() => connections === 1, 2000), 'the allowed connection did not arrive');
    } finally {
      server.close();
    }
  });

  it('a setsid child does not survive the timeout (it does without the sandbox)', async () => {
    const sandboxedMarker = `9${Math.floor(Math.random() * 1e6)}.25`;
    const started = Date.now();
    const result = await runIn(ws, `setsid sleep ${sandboxedMarker} & echo started; sleep 60`, SANDBOXED, { timeoutMs: 1500 });
    assert.ok(Date.now() - started < 8000, `took ${Date.now() - started} ms`);
    assert.match(result.output, /timed out/);
    assert.ok(await waitUntil(() => processesMatching(`sleep ${sandboxedMarker}`).length === 0, 3000), 'the setsid child survived the sandboxed call');

    // The same without the sandbox shows the test can fail: the child escapes the process group.
    const plainMarker = `8${Math.floor(Math.random() * 1e6)}.25`;
    await runIn(ws, `setsid sleep ${plainMarker} & sleep 60`, UNSANDBOXED, { timeoutMs: 1000 });
    const survivors = processesMatching(`sleep ${plainMarker}`);
    for (const pid of survivors) process.kill(pid, 'SIGKILL');
    assert.ok(survivors.length > 0, 'expected the unsandboxed setsid child to outlive the call');
  });

  it('the command sees no secret from the environment, only the allowlist and the pass-through names', async () => {
    const saved = { ...process.env };
    process.env.OPENAI_API_KEY = 'sk-cortex-test-secret';
    process.env.AWS_SECRET_ACCESS_KEY = 'aws-cortex-test-secret';
    process.env.CORTEX_PASSED = 'passed-value';
    try {
      for (const settings of [SANDBOXED, UNSANDBOXED]) {
        const shell = await runIn(ws, 'echo "x$OPENAI_API_KEY y$AWS_SECRET_ACCESS_KEY"; env; cat /proc/self/environ | tr "\\0" "\\n"', settings);
        assert.equal(shell.ok, true, shell.output);
        assert.doesNotMatch(shell.output, /cortex-test-secret/, settings.sandboxMode);
        assert.match(shell.output, /^x y$/m);
        const literal = await runIn(ws, 'env', { ...settings, envPassthrough: ['CORTEX_PASSED'] });
        assert.doesNotMatch(literal.output, /cortex-test-secret/);
        assert.match(literal.output, /^CORTEX_PASSED=passed-value$/m);
        assert.match(literal.output, /^PATH=/m);
      }
    } finally {
      process.env = saved;
    }
  });

  it('a /proc/self/environ reached from inside the sandbox holds the scrubbed environment only', async () => {
    process.env.OPENAI_API_KEY = 'sk-cortex-proc-secret';
    try {
      const result = await runIn(ws, 'cat /proc/1/environ /proc/self/environ; ls /proc | head -50', SANDBOXED);
      assert.doesNotMatch(result.output, /cortex-proc-secret/);
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });
});

describe('sandbox layout and choice', () => {
  it('binds the workspace after emptying the /tmp or hidden folder that contains it, and covers a secret inside the workspace after binding it', () => {
    const args = bubblewrapArgs({ workspace: '/tmp/ws', cwd: '/tmp/ws/sub', network: false });
    assert.deepEqual(args.slice(args.indexOf('--tmpfs'), args.indexOf('--unshare-all')), ['--tmpfs', '/tmp', '--bind', '/tmp/ws', '/tmp/ws']);
    const home = bubblewrapArgs({
      workspace: '/home/u',
      cwd: '/home/u',
      hidden: [
        { path: '/home/u/.ssh', folder: true },
        { path: '/home/u/.npmrc', folder: false },
      ],
      network: false,
    });
    assert.deepEqual(home.slice(home.indexOf('--tmpfs'), home.indexOf('--unshare-all')), [
      '--tmpfs',
      '/tmp',
      '--bind',
      '/home/u',
      '/home/u',
      '--tmpfs',
      '/home/u/.ssh',
      '--dev-bind',
      '/dev/null',
      '/home/u/.npmrc',
    ]);
    assert.ok(args.includes('--die-with-parent') && args.includes('--new-session') && args.includes('--unshare-all'));
    assert.deepEqual(args.slice(args.indexOf('--cap-drop'), args.indexOf('--cap-drop') + 2), ['--cap-drop', 'ALL']);
    assert.equal(args.includes('--share-net'), false);
    assert.deepEqual(args.slice(-3), ['--chdir', '/tmp/ws/sub', '--']);
    assert.ok(bubblewrapArgs({ workspace: '/tmp/ws', cwd: '/tmp/ws', network: true }).includes('--share-net'));
  });

  it("binds the run's own files read-only after the workspace, and only those that exist inside it", async () => {
    const args = bubblewrapArgs({
      workspace: '/tmp/ws',
      cwd: '/tmp/ws',
      readOnly: ['/tmp/ws/logs/run.jsonl', '/tmp/ws/run.jsonl.checkpoints'],
      network: false,
    });
    assert.deepEqual(args.slice(args.indexOf('--tmpfs'), args.indexOf('--unshare-all')), [
      '--tmpfs',
      '/tmp',
      '--bind',
      '/tmp/ws',
      '/tmp/ws',
      '--ro-bind',
      '/tmp/ws/run.jsonl.checkpoints',
      '/tmp/ws/run.jsonl.checkpoints',
      '--ro-bind',
      '/tmp/ws/logs/run.jsonl',
      '/tmp/ws/logs/run.jsonl',
    ]);
    const ws = mkdtempSync(path.join(os.tmpdir(), 'cortex-sbx-ro-'));
    try {
      writeFileSync(path.join(ws, 'run.jsonl'), '');
      const outside = path.join(path.dirname(ws), 'elsewhere.jsonl');
      assert.deepEqual(await existingInside(ws, [path.join(ws, 'run.jsonl'), path.join(ws, 'run.jsonl.lock'), outside, ws]), [path.join(ws, 'run.jsonl')]);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });

  const missing = () => Promise.resolve({ available: false as const, reason: 'bubblewrap is not installed' });
  const present = () => Promise.resolve({ available: true as const, bwrap: '/usr/bin/bwrap' });

  it('auto runs unsandboxed without a sandbox, required refuses with a clear message, off never probes', async () => {
    assert.deepEqual(await chooseSandbox({ sandboxMode: 'auto' }, missing), { kind: 'none', reason: 'bubblewrap is not installed' });
    const refused = await chooseSandbox({ sandboxMode: 'required' }, missing);
    assert.equal(refused.kind, 'refused');
    assert.match(
      (refused as { message: string }).message,
      /cortex\.sandbox\.mode is "required" but no sandbox is available: bubblewrap is not installed\. The command did not run\./,
    );
    let probed = false;
    assert.equal((await chooseSandbox({ sandboxMode: 'off' }, async () => ((probed = true), present()))).kind, 'none');
    assert.equal(probed, false);
  });

  it('the run-start notice warns when commands run unsandboxed or will be refused, and says nothing when sandboxed', async () => {
    assert.equal(await sandboxNotice({ sandboxMode: 'auto' }, present), undefined);
    assert.match((await sandboxNotice({ sandboxMode: 'auto' }, missing))!, /without a sandbox in this run \(bubblewrap is not installed\)/);
    assert.match((await sandboxNotice({ sandboxMode: 'off' }, present))!, /without a sandbox in this run \(cortex\.sandbox\.mode is "off"\)/);
    assert.match((await sandboxNotice({ sandboxMode: 'required' }, missing))!, /run_command is refused in this run/);
  });
});
