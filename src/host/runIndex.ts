import { z } from 'zod';

// A small persisted list of recent runs (in globalState), so "Open run trace…" can list them and
// a restored panel can find its run's trace file after a reload.

export const RecentRunSchema = z.object({
  runId: z.string().min(1),
  task: z.string(),
  startedAt: z.number(),
  status: z.enum(['running', 'completed', 'failed', 'cancelled']),
  traceFile: z.string().min(1),
  workspace: z.string().optional(),
});
export type RecentRun = z.infer<typeof RecentRunSchema>;

export const MAX_RECENT_RUNS = 30;

/** Reads a stored list, dropping entries that no longer parse (a corrupt entry must not hide the rest). */
export function parseRecentRuns(raw: unknown): RecentRun[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((item) => {
    const parsed = RecentRunSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Inserts or updates `entry` (by runId), newest first, keeping at most `max`. */
export function upsertRecentRun(list: readonly RecentRun[], entry: RecentRun, max = MAX_RECENT_RUNS): RecentRun[] {
  const rest = list.filter((run) => run.runId !== entry.runId);
  return [entry, ...rest].sort((a, b) => b.startedAt - a.startedAt).slice(0, max);
}

/** Minimal slice of `vscode.Memento` used here. */
export interface MementoLike {
  get(key: string): unknown;
  update(key: string, value: unknown): Thenable<void>;
}

/** The index over a Memento (the extension passes `context.globalState`). */
export class RunIndex {
  static readonly KEY = 'cortex.recentRuns';
  constructor(private readonly memento: MementoLike) {}

  list(): RecentRun[] {
    return parseRecentRuns(this.memento.get(RunIndex.KEY));
  }

  find(runId: string): RecentRun | undefined {
    return this.list().find((run) => run.runId === runId);
  }

  async upsert(entry: RecentRun): Promise<void> {
    await this.memento.update(RunIndex.KEY, upsertRecentRun(this.list(), entry));
  }
}
