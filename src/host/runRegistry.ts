import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../core/ports';
import { readTraceSync } from '../core/trace/traceReader';
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

  /** The live run, else its trace from storage; undefined if neither exists. Throws TraceError on a bad trace. */
  sourceSync(runId: string): RunSource | undefined {
    if (!isRunId(runId)) return undefined;
    const live = this.runs.get(runId);
    if (live) return liveRunSource(live);
    const file = this.index.find(runId)?.traceFile ?? this.traceFileFor(runId);
    if (!existsSync(file)) return undefined;
    return this.fromTraceFileSync(file, runId);
  }

  /** Replays any trace file (from the index or picked by the user). */
  fromTraceFileSync(file: string, fallbackRunId?: string): RunSource {
    const { events, warnings } = readTraceSync(file);
    for (const warning of warnings) this.logger.warn(warning);
    const started = events.find((event) => event.type === 'run_started');
    const runId = started?.type === 'run_started' ? started.runId : (fallbackRunId ?? file);
    const live = this.runs.get(runId);
    if (live) return liveRunSource(live);
    return traceRunSource(runId, events, file);
  }
}
