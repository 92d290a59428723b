import { createToolCallAccumulator } from '../src/core/llm/toolCallAccumulator';

// Tool-call ingestion throughput. ~10 MB of SSE lines as a slow provider sends them (parallel
// calls, interleaved, a few characters of arguments per chunk) are read twice in the same run:
//   baseline: one JSON.parse per SSE line, the floor any accumulator pays;
//   ours:     the same JSON.parse per line, then accumulator.push, and finish() per response.
// Target: ours reaches at least 0.5 of the baseline's throughput.
// Then one call of N fragments for N = 1k, 10k, 100k: the time per fragment must stay flat
// (linear growth); it fails if per-fragment time at 100x is more than 3x that at 1x.

const TARGET_RATIO = 0.5;
const MAX_LINEARITY_FACTOR = 3;
const STREAM_BYTES = 10 * 1024 * 1024;
const CALLS_PER_RESPONSE = 8;
const ARGUMENT_CHARS = 600;

type Line = string;

function envelope(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1_733_162_241,
    model: 'bench-model',
    system_fingerprint: 'fp_bench',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
}

/** Deterministic pseudo-random fragment sizes of 1-6 characters. */
function fragmentSizes(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return 1 + (s % 6);
  };
}

/** One response: CALLS_PER_RESPONSE calls whose argument fragments interleave round-robin. */
function responseLines(r: number): { lines: Line[]; expected: string[] } {
  const next = fragmentSizes(r + 1);
  const lines: Line[] = [`data: ${envelope({ role: 'assistant', content: null })}`];
  const args: string[] = [];
  const pieces: string[][] = [];
  for (let c = 0; c < CALLS_PER_RESPONSE; c++) {
    const text = JSON.stringify({ path: `src/file_${r}_${c}.ts`, content: 'x'.repeat(ARGUMENT_CHARS) + ` é ${r}/${c}` });
    args.push(text);
    const parts: string[] = [];
    for (let i = 0; i < text.length;) {
      const n = next();
      parts.push(text.slice(i, i + n));
      i += n;
    }
    pieces.push(parts);
    lines.push(`data: ${envelope({ tool_calls: [{ index: c, id: `call_${r}_${c}`, type: 'function', function: { name: 'write_file', arguments: '' } }] })}`);
  }
  const longest = Math.max(...pieces.map((p) => p.length));
  for (let i = 0; i < longest; i++) {
    for (let c = 0; c < CALLS_PER_RESPONSE; c++) {
      const piece = pieces[c][i];
      if (piece !== undefined) lines.push(`data: ${envelope({ tool_calls: [{ index: c, function: { arguments: piece } }] })}`);
    }
  }
  lines.push(`data: ${envelope({}, 'tool_calls')}`);
  lines.push(
    `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench-model', choices: [], usage: { prompt_tokens: 10, completion_tokens: 1000, total_tokens: 1010 } })}`,
  );
  return { lines, expected: args };
}

function buildStream(): { responses: Line[][]; expected: string[][]; bytes: number; lines: number } {
  const responses: Line[][] = [];
  const expected: string[][] = [];
  let bytes = 0;
  let lines = 0;
  for (let r = 0; bytes < STREAM_BYTES; r++) {
    const response = responseLines(r);
    responses.push(response.lines);
    expected.push(response.expected);
    for (const line of response.lines) bytes += Buffer.byteLength(line) + 2; // + "\n\n"
    lines += response.lines.length;
  }
  return { responses, expected, bytes, lines };
}

function baseline(responses: Line[][]): number {
  let sink = 0;
  for (const lines of responses) {
    for (const line of lines) {
      const chunk = JSON.parse(line.slice(6)) as { choices: unknown[] };
      sink += chunk.choices.length;
    }
  }
  return sink;
}

function ours(responses: Line[][], expected?: string[][]): number {
  let sink = 0;
  for (let r = 0; r < responses.length; r++) {
    const accumulator = createToolCallAccumulator({ batch: r });
    for (const line of responses[r]) {
      const chunk = JSON.parse(line.slice(6)) as { choices: unknown[] };
      sink += chunk.choices.length;
      accumulator.push(chunk);
    }
    const result = accumulator.finish();
    sink += result.toolCalls.length;
    if (expected) {
      const got = result.toolCalls.map((c) => (c.isComplete ? c.rawArguments : `INCOMPLETE ${c.parseError}`));
      if (got.length !== expected[r].length || got.some((g, i) => g !== expected[r][i])) {
        throw new Error(`response ${r}: the accumulator assembled ${JSON.stringify(got).slice(0, 300)}, expected ${expected[r].length} complete calls`);
      }
    }
  }
  return sink;
}

/**
 * Process CPU time (all threads, GC included) of one run, in ms. CPU time rather than wall time:
 * on a shared 2-core machine the process is not charged for the time other processes hold the CPU.
 * No forced gc() before a run: its background sweeping would be charged to the run.
 */
function timeOnce(fn: () => number): number {
  const started = process.cpuUsage();
  fn();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * A call of `n` argument fragments. The input is a small pool of distinct pre-parsed chunks used in
 * turn, so its size stays the same for every n and only the accumulator's own cost can grow.
 */
function singleCallChunks(n: number): unknown[] {
  const pool = Array.from({ length: 64 }, (_, i) => ({
    choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: `ab${String.fromCharCode(97 + (i % 26))}d` } }] }, finish_reason: null }],
  }));
  const chunks: unknown[] = [
    {
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, id: 'call_big', type: 'function', function: { name: 'write_file', arguments: '{"content":"' } }] },
          finish_reason: null,
        },
      ],
    },
  ];
  for (let i = 0; i < n - 2; i++) chunks.push(pool[i % pool.length]);
  chunks.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"}' } }] }, finish_reason: null }] });
  chunks.push({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
  return chunks;
}

function ingestSingleCall(chunks: unknown[]): number {
  const accumulator = createToolCallAccumulator({ maxArgumentBytes: 64 * 1024 * 1024 });
  for (const c of chunks) accumulator.push(c);
  const call = accumulator.finish().toolCalls[0];
  if (!call?.isComplete) throw new Error('single call did not assemble');
  return call.rawArguments.length;
}

function main(): void {
  let failed = false;
  const mb = (bytes: number) => bytes / (1024 * 1024);

  const stream = buildStream();
  console.log(
    `stream: ${mb(stream.bytes).toFixed(1)} MB, ${stream.lines} SSE lines, ${stream.responses.length} responses x ${CALLS_PER_RESPONSE} interleaved calls, 1-6 argument characters per chunk`,
  );
  ours(stream.responses, stream.expected); // correctness check
  // Warm-up, so both sides run optimised code when timed.
  for (let i = 0; i < 3; i++) {
    baseline(stream.responses);
    ours(stream.responses);
  }
  // Paired rounds of CPU time, so load from other processes hits both sides alike; medians of each.
  const baseTimes: number[] = [];
  const oursTimes: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < 9; round++) {
    const b = timeOnce(() => baseline(stream.responses));
    const o = timeOnce(() => ours(stream.responses));
    baseTimes.push(b);
    oursTimes.push(o);
    ratios.push(b / o);
  }
  const baseMs = median(baseTimes);
  const oursMs = median(oursTimes);
  const ratio = median(ratios);
  console.log(
    `  baseline  JSON.parse per line           ${baseMs.toFixed(1).padStart(8)} ms CPU  ${(mb(stream.bytes) / (baseMs / 1000)).toFixed(1).padStart(7)} MB/s`,
  );
  console.log(
    `  ours      JSON.parse + accumulator      ${oursMs.toFixed(1).padStart(8)} ms CPU  ${(mb(stream.bytes) / (oursMs / 1000)).toFixed(1).padStart(7)} MB/s`,
  );
  const throughputOk = ratio >= TARGET_RATIO;
  console.log(
    `  throughput ratio ours/baseline = ${ratio.toFixed(2)} (CPU time, median of 9 paired rounds; target >= ${TARGET_RATIO}): ${throughputOk ? 'met' : 'MISSED'}`,
  );
  if (!throughputOk) failed = true;

  console.log('single call, N argument fragments of 4 characters (pre-parsed chunks; push + finish, final JSON.parse included):');
  const sizes = [1_000, 10_000, 100_000];
  const perFragment: number[] = [];
  for (const n of sizes) {
    if (perFragment.length > 0 && perFragment[perFragment.length - 1] / perFragment[0] > MAX_LINEARITY_FACTOR) {
      // Already superlinear: the larger size would only take long to say the same.
      console.log(`  N=${String(n).padStart(7)} skipped: growth is already superlinear`);
      perFragment.push(Number.POSITIVE_INFINITY);
      continue;
    }
    const chunks = singleCallChunks(n);
    const reps = Math.max(1, Math.round(1_000_000 / n));
    for (let i = 0; i < Math.min(reps, 50); i++) ingestSingleCall(chunks); // warm-up
    const ms = median(
      Array.from({ length: 5 }, () =>
        timeOnce(() => {
          let sink = 0;
          for (let i = 0; i < reps; i++) sink += ingestSingleCall(chunks);
          return sink;
        }),
      ),
    );
    const ns = (ms * 1e6) / (reps * n);
    perFragment.push(ns);
    console.log(
      `  N=${String(n).padStart(7)} (${String(n / sizes[0]).padStart(3)}x)  ${(ms / reps).toFixed(3).padStart(9)} ms per call  ${ns.toFixed(1).padStart(7)} ns per fragment`,
    );
  }
  const growth = perFragment[2] / perFragment[0];
  const linearOk = growth <= MAX_LINEARITY_FACTOR;
  console.log(
    `  per-fragment time at 100x / at 1x = ${growth.toFixed(2)} (target <= ${MAX_LINEARITY_FACTOR}, i.e. linear growth): ${linearOk ? 'met' : 'MISSED'}`,
  );
  if (!linearOk) failed = true;

  console.log(failed ? 'accumulator: a target was MISSED' : 'accumulator: all targets met');
  process.exit(failed ? 1 : 0);
}

main();
