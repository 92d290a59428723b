import { readFileSync } from 'node:fs';

// Whether the process that took a run lock is still that process and still running. `kill(pid, 0)`
// alone says yes for a zombie (killed, not yet reaped by its parent) and for an unrelated program
// that was given the same process id later; on Linux, /proc tells both apart.

/** The state letter and start time (clock ticks since boot) of a process, from /proc/PID/stat. */
export interface ProcStat {
  state: string;
  startTicks: string;
}

/** Parses /proc/PID/stat; the command name (field 2) may hold spaces and parentheses, so fields are read after its last ')'. */
export function parseProcStat(text: string): ProcStat | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  // fields[0] is field 3 (state); field 22 (starttime) is fields[19].
  const state = fields[0];
  const startTicks = fields[19];
  if (!state || !startTicks || !/^\d+$/.test(startTicks)) return undefined;
  return { state, startTicks };
}

/** The /proc view of `pid`: undefined when /proc has no such process (or there is no /proc). */
export function readProcStatSync(pid: number): ProcStat | undefined | 'unavailable' {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8')) ?? 'unavailable';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : 'unavailable';
  }
}

/** This process's start time, recorded in its locks so a later reader can tell a reused id. */
export function ownStartTicks(): string | undefined {
  const stat = readProcStatSync(process.pid);
  return typeof stat === 'object' ? stat.startTicks : undefined;
}

/** True unless signalling the process fails with ESRCH (EPERM: it exists, it is someone else's). */
function answersSignals(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Whether `pid` is a live process that is the one that started at `startTicks` (when known).
 * A zombie or dead process ('Z', 'X') is not alive; neither is a process with another start time.
 * Without /proc (not Linux), signalling decides.
 */
export function processIsAlive(pid: number, startTicks?: string): boolean {
  const stat = readProcStatSync(pid);
  if (stat === 'unavailable') return answersSignals(pid);
  if (!stat) return false;
  if (stat.state === 'Z' || stat.state === 'X' || stat.state === 'x') return false;
  return startTicks === undefined || stat.startTicks === startTicks;
}
