// The input of `cortex_checkRun`, apart from the tool so it is tested in plain Node.

export interface CheckRunInput {
  /** A run id (`run-…`); absent: the newest run of this workspace. */
  runId?: string;
}

/** The tool's input as the model wrote it: only an optional run id of a sane size. */
export function parseCheckRunInput(raw: unknown): CheckRunInput {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error('The input of cortex_checkRun must be an object such as {"runId": "run-…"} or {}.');
  const runId = (raw as { runId?: unknown }).runId;
  if (runId === undefined || runId === '') return {};
  if (typeof runId !== 'string' || runId.length > 200)
    throw new Error('runId must be the id of a Cortex run (a string such as "run-20261126-…"), or be left out for the newest run.');
  return { runId: runId.trim() };
}
