import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
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
  it('is created next to the trace with the holder (pid, host, start), refuses a second driver by name, and is released', () => {
    const trace = traceFile();
    const lock = acquireRunLock(trace, { now: () => 1_700_000_000_000 });
    assert.equal(lock.file, `${trace}.lock`);
    assert.deepEqual(JSON.parse(readFileSync(lock.file, 'utf8')), { pid: process.pid, host: hostname(), startedAt: 1_700_000_000_000 });
    assert.deepEqual(readLockHolder(trace), lock.holder);
    assert.throws(
      () => acquireRunLock(trace),
      (error: unknown) =>
        error instanceof RunLockedError &&
        error.message.includes(`process ${process.pid} on ${hostname()}`) &&
        error.message.includes('only one process may drive a run') &&
        error.holder?.pid === process.pid,
    );
    lock.release();
    lock.release();
    assert.equal(existsSync(lockFileFor(trace)), false);
    acquireRunLock(trace).release();
  });

  it('takes over the lock of a holder that died on this machine, and says whose it was', () => {
    const trace = traceFile();
    const pid = deadPid();
    writeFileSync(lockFileFor(trace), JSON.stringify({ pid, host: hostname(), startedAt: 1 }));
    const lock = acquireRunLock(trace);
    assert.equal(lock.recoveredFrom?.pid, pid);
    assert.equal(readLockHolder(trace)?.pid, process.pid);
    lock.release();
  });

  it('never takes a lock held on another host (its process cannot be checked)', () => {
    const trace = traceFile();
    writeFileSync(lockFileFor(trace), JSON.stringify({ pid: deadPid(), host: 'elsewhere.example', startedAt: 1 }));
    assert.throws(() => acquireRunLock(trace), /driven by process \d+ on elsewhere\.example .*another machine; if that process is gone, delete .*\.lock/);
  });

  it('a live holder is refused even when it is someone else (the liveness check is the real one)', () => {
    const trace = traceFile();
    // pid 1 always exists; signalling it may be refused (EPERM), which still means alive.
    writeFileSync(lockFileFor(trace), JSON.stringify({ pid: 1, host: hostname(), startedAt: 1 }));
    assert.throws(() => acquireRunLock(trace), /already driven by process 1 on /);
  });

  it('a lock file being written is refused; one left unreadable for long is taken over', () => {
    const trace = traceFile();
    writeFileSync(lockFileFor(trace), '');
    assert.throws(() => acquireRunLock(trace), /another process is taking the run lock/);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockFileFor(trace), old, old);
    acquireRunLock(trace).release();
  });

  it('release leaves alone a lock that another process took over since', () => {
    const trace = traceFile();
    const lock = acquireRunLock(trace, { pid: deadPid() });
    const successor = acquireRunLock(trace);
    assert.ok(successor.recoveredFrom);
    lock.release();
    assert.equal(readLockHolder(trace)?.pid, process.pid, 'the successor still holds it');
    successor.release();
  });
});
