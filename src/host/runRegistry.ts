import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../core/ports';
import { readTrace } from '../core/trace/traceReader';
import { isRunId, traceRunSource, type RunSource } from '../panel/runSource';
import { liveRunSource, type LiveRun } from './liveRun';
import type { RunIndex } from './runIndex';

/** Finished live runs kept in memory for their panels; older ones are read back from their traces. */
const MAX_FINISHED_IN_MEMORY = 10;

/** Every run this window knows: live ones in memory, earlier ones through the index and trace files. */
export class RunRegistry {
  private readonly runs = new Map<string, LiveRun>();

  constructor(
    private readonly index: RunIndex,
    private readonly runsDir: string,
    private readonly logger: Logger,
  ) {}

  traceFileFor(runId: string): string {
    return join(this.runsDir, `${runId}.jsonl`);
  }

  add(run: LiveRun): void {
    this.runs.set(run.runId, run);
    const finished = [...this.runs.values()].filter((r) => r.result !== undefined);
    for (const old of finished.slice(0, Math.max(0, finished.length - MAX_FINISHED_IN_MEMORY))) this.runs.delete(old.runId);
  }

  get(runId: string): LiveRun | undefined {
    return this.runs.get(runId);
  }

  running(): LiveRun[] {
    return [...this.runs.values()].filter((run) => run.result === undefined);
  }

  latest(): LiveRun | undefined {
    return [...this.runs.values()].at(-1);
  }

  /**
   * The live run, else its trace from storage (read without holding the extension host's thread);
   * undefined if neither exists. Rejects with a TraceError on a bad trace.
   */
  async source(runId: string): Promise<RunSource | undefined> {
    if (!isRunId(runId)) return undefined;
    const live = this.runs.get(runId);
    if (live) return liveRunSource(live);
    const file = this.index.find(runId)?.traceFile ?? this.traceFileFor(runId);
    if (!(await exists(file))) return undefined;
    return this.fromTraceFile(file, runId);
  }

  /** Replays any trace file (from the index or picked by the user). */
  async fromTraceFile(file: string, fallbackRunId?: string): Promise<RunSource> {
    const { events, warnings } = await readTrace(file);
    for (const warning of warnings) this.logger.warn(warning);
    const started = events.find((event) => event.type === 'run_started');
    const runId = started?.type === 'run_started' ? started.runId : (fallbackRunId ?? file);
    const live = this.runs.get(runId);
    if (live) return liveRunSource(live);
    return traceRunSource(runId, events, file);
  }
}

/** Whether anything is at `file` (as existsSync: a broken link is nothing). */
function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
