// What recording every change costs (docs/design.md, “Checkpoints and revert”), next to the cost of the tool call itself,
// measured in the same run:
//  1. a file-tool change of a 1 MB file (edit_file of one line): the call with the recorder against
//     the same call without it, in alternation; the median time the recorder adds to the call
//     must be under 2 ms. The recorder reads the old and the new content during the call and
//     hashes, stores and describes them right after it returns (before the next call, a revert
//     or the run's end): that work is reported too, as is the first change of a file the run has
//     not written yet;
//  2. a command in a 10,000-file workspace: run_command with the recorder (scan before and after,
//     the shadow git snapshot, hashing what differs) against the same command without it; the
//     median added time must be under 150 ms. The first snapshot of the workspace (taken in the
//     background from the first command request) is reported;
//  3. storage: the same content written to 50 files is stored once.
// Exits non-zero on a missed target.
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordToolCall } from '../src/core/checkpoints/callRecording';
import { CheckpointRecorder } from '../src/core/checkpoints/checkpointRecorder';
import { executeTool } from '../src/core/tools/toolExecutor';
import type { ToolContext, ToolDefinition } from '../src/core/tools/toolTypes';
import { editFileTool } from '../src/core/tools/workspace/editFile';
import { runCommandTool } from '../src/core/tools/workspace/runCommand';
import { writeFileTool } from '../src/core/tools/workspace/writeFile';

const FILE_TARGET_MS = 2;
const COMMAND_TARGET_MS = 150;
const FILE_BYTES = 1024 * 1024;
const WORKSPACE_FILES = 10_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function context(ws: string): ToolContext & { commandExecution: { sandboxMode: 'off'; network: false; envPassthrough: string[] } } {
  return {
    workspaceRoot: ws,
    signal: new AbortController().signal,
    maxReadFileBytes: 2 * FILE_BYTES,
    timeoutMs: 60_000,
    commandExecution: { sandboxMode: 'off', network: false, envPassthrough: [] },
  };
}

function newRecorder(base: string, ws: string, onChange: () => void = () => undefined): CheckpointRecorder {
  return new CheckpointRecorder({
    dir: join(base, 'checkpoints'),
    workspaceRoot: ws,
    maxFileBytes: 10 * 1024 * 1024,
    recordChanges: onChange,
    warn: (message) => console.error(`  warning: ${message}`),
  });
}

/** About 1 MB of source-like lines. */
function megabyteOfLines(): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < FILE_BYTES; i++) {
    const line = `export const value${i} = compute(${i}, "item-${i}"); // line ${i}\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join('');
}

async function timed(run: () => Promise<{ ok: boolean; output: string }>): Promise<number> {
  const started = performance.now();
  const result = await run();
  const ms = performance.now() - started;
  if (!result.ok) throw new Error(`a measured call failed: ${result.output}`);
  return ms;
}

/** A recorded call: the time until it returned, and until its recording was complete too. */
async function timedRecorded(recorder: CheckpointRecorder, run: () => Promise<{ ok: boolean; output: string }>): Promise<{ call: number; total: number }> {
  const started = performance.now();
  const call = await timed(run);
  await recorder.settle();
  return { call, total: performance.now() - started };
}

async function fileToolCost(): Promise<boolean> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-bench-cp-')));
  const ws = join(base, 'ws');
  mkdirSync(ws);
  try {
    const text = megabyteOfLines();
    writeFileSync(join(ws, 'plain.ts'), text);
    writeFileSync(join(ws, 'recorded.ts'), text);
    const recorder = newRecorder(base, ws);
    await recorder.prepare();
    const ctx = context(ws);
    const call = (tool: ToolDefinition, args: unknown, id: string, recorded: boolean) =>
      recorded
        ? recordToolCall(recorder, { stepId: 's1', callId: id, tool }, ctx, (c) => executeTool(tool, args, c, 100_000))
        : executeTool(tool, args, ctx, 100_000);
    const edit = (file: string, i: number) => ({
      path: file,
      old_text: i % 2 === 0 ? 'line 5000\n' : 'LINE 5000\n',
      new_text: i % 2 === 0 ? 'LINE 5000\n' : 'line 5000\n',
    });
    const plain: number[] = [];
    const recorded: Array<{ call: number; total: number }> = [];
    for (let i = 0; i < 80; i++) {
      plain.push(await timed(() => call(editFileTool, edit('plain.ts', i), `p${i}`, false)));
      recorded.push(await timedRecorded(recorder, () => call(editFileTool, edit('recorded.ts', i), `r${i}`, true)));
    }
    const warm = {
      plain: median(plain.slice(10)),
      recorded: median(recorded.slice(10).map((r) => r.call)),
      total: median(recorded.slice(10).map((r) => r.total)),
    };
    // First changes of files the run never wrote: the old content is read, hashed and stored.
    const coldPlain: number[] = [];
    const coldRecorded: Array<{ call: number; total: number }> = [];
    for (let i = 0; i < 30; i++) {
      writeFileSync(join(ws, `cold-p${i}.ts`), `${text}// ${i}\n`);
      writeFileSync(join(ws, `cold-r${i}.ts`), `${text}// ${i} r\n`);
      coldPlain.push(await timed(() => call(writeFileTool, { path: `cold-p${i}.ts`, content: `${text}// changed ${i}\n` }, `cp${i}`, false)));
      coldRecorded.push(
        await timedRecorded(recorder, () => call(writeFileTool, { path: `cold-r${i}.ts`, content: `${text}// changed ${i} r\n` }, `cr${i}`, true)),
      );
    }
    const cold = { plain: median(coldPlain), recorded: median(coldRecorded.map((r) => r.call)), total: median(coldRecorded.map((r) => r.total)) };
    await recorder.close();
    const added = warm.recorded - warm.plain;
    const ok = added < FILE_TARGET_MS;
    console.log(
      `file tool, 1 MB file (edit_file of one line, median of 70): the call takes ${warm.recorded.toFixed(2)} ms recorded vs ${warm.plain.toFixed(2)} ms alone → ${added.toFixed(2)} ms added (target < ${FILE_TARGET_MS} ms) ${ok ? 'ok' : 'MISSED'}`,
    );
    console.log(`  with the hashing, storing and line counts that follow the call: ${(warm.total - warm.plain).toFixed(2)} ms of work in all`);
    console.log(
      `  first change of a 1 MB file the run had not written (write_file, median of 30): ${(cold.recorded - cold.plain).toFixed(2)} ms added to the call (${cold.recorded.toFixed(2)} vs ${cold.plain.toFixed(2)} ms), ${(cold.total - cold.plain).toFixed(2)} ms of work in all`,
    );
    return ok;
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

async function commandCost(): Promise<boolean> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-bench-cp-')));
  const ws = join(base, 'ws');
  mkdirSync(ws);
  try {
    for (let d = 0; d < WORKSPACE_FILES / 100; d++) {
      mkdirSync(join(ws, `pkg${d}`, 'src'), { recursive: true });
      for (let f = 0; f < 100; f++) writeFileSync(join(ws, `pkg${d}`, f < 50 ? '' : 'src', `file${f}.ts`), `export const v${d}_${f} = ${d * f};\n`);
    }
    const recorder = newRecorder(base, ws);
    const prepareStarted = performance.now();
    await recorder.prepare();
    // The first command sets up the shadow repository; its first snapshot ends before the
    // command's own (they share one queue).
    await recorder.recordCommand('s0', 'warm', async () => undefined);
    const firstSnapshotMs = performance.now() - prepareStarted;
    const ctx = context(ws);
    const command = (i: number) => ({ command: `sh -c "echo ${i} > pkg${i % 100}/out.txt"` });
    const plain: number[] = [];
    const recorded: number[] = [];
    for (let i = 0; i < 24; i++) {
      plain.push(await timed(() => executeTool(runCommandTool, command(i), ctx, 100_000)));
      recorded.push(
        await timed(() =>
          recordToolCall(recorder, { stepId: 's1', callId: `c${i}`, tool: runCommandTool }, ctx, (c) =>
            executeTool(runCommandTool, command(i + 1000), c, 100_000),
          ),
        ),
      );
    }
    await recorder.close();
    const warm = { plain: median(plain.slice(4)), recorded: median(recorded.slice(4)) };
    const added = warm.recorded - warm.plain;
    const ok = added < COMMAND_TARGET_MS;
    console.log(
      `command in a ${WORKSPACE_FILES.toLocaleString('en-US')}-file workspace (run_command, median of 20): ${warm.recorded.toFixed(1)} ms recorded vs ${warm.plain.toFixed(1)} ms alone → ${added.toFixed(1)} ms added (target < ${COMMAND_TARGET_MS} ms) ${ok ? 'ok' : 'MISSED'}`,
    );
    console.log(`  first snapshot of the workspace (in the background, from the first command request): ${firstSnapshotMs.toFixed(0)} ms`);
    return ok;
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

async function storage(): Promise<boolean> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-bench-cp-')));
  const ws = join(base, 'ws');
  mkdirSync(ws);
  try {
    const recorder = newRecorder(base, ws);
    const ctx = context(ws);
    const same = megabyteOfLines().slice(0, 100_000);
    for (let i = 0; i < 50; i++)
      await recordToolCall(recorder, { stepId: 's1', callId: `w${i}`, tool: writeFileTool }, ctx, (c) =>
        executeTool(writeFileTool, { path: `copy${i}.txt`, content: same }, c, 100_000),
      );
    await recorder.close();
    const objects = join(base, 'checkpoints', 'objects');
    const stored = readdirSync(objects).flatMap((sub) => readdirSync(join(objects, sub))).length;
    const ok = stored === 1;
    console.log(`storage: the same 100 KB written to 50 files is stored ${stored} time(s) (target: once) ${ok ? 'ok' : 'MISSED'}`);
    return ok;
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const results = [await fileToolCost(), await commandCost(), await storage()];
  if (results.some((ok) => !ok)) {
    console.error('checkpoints: a target was missed');
    process.exit(1);
  }
}

void main();
