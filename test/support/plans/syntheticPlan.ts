import type { NewRunEvent, RunEvent } from '../../../src/core/plan/events';

// Deterministic synthetic runs for the panel bench and the webview unit tests: a plan shaped like
// what the planner produces (layers of parallel steps, each depending on one to three earlier ones).

/** Stamps `seq` and `time` on events like the real event log does. */
export class EventStamper {
  seq: number;
  time: number;
  constructor(startSeq = 0, startTime = 1_700_000_000_000) {
    this.seq = startSeq;
    this.time = startTime;
  }
  stamp(event: NewRunEvent, advanceMs = 5): RunEvent {
    this.time += advanceMs;
    return { ...event, seq: this.seq++, time: this.time };
  }
}

/** Small deterministic PRNG (mulberry32) so every run of the bench lays out the same graph. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VERBS = ['Read', 'Summarise', 'Refactor', 'Test', 'Check', 'Update', 'Search', 'Write', 'Compare', 'Document'];
const THINGS = [
  'the config loader',
  'src/core/agent/executor.ts',
  'the README usage section',
  'failing unit tests',
  'the tool registry',
  'CHANGELOG.md',
  'the retry policy',
  'package.json scripts',
  'the trace format',
  'error messages',
];

/** Step ids and dependencies of a layered synthetic plan with `count` steps. */
export function syntheticSteps(count: number, seed = 42): Array<{ id: string; description: string; dependsOn: string[] }> {
  const rand = prng(seed);
  const width = Math.max(2, Math.round(Math.sqrt(count) / 1.5));
  const steps: Array<{ id: string; description: string; dependsOn: string[] }> = [];
  for (let i = 0; i < count; i++) {
    const layer = Math.floor(i / width);
    const dependsOn: string[] = [];
    if (layer > 0) {
      const k = 1 + Math.floor(rand() * 3);
      for (let j = 0; j < k; j++) {
        // Mostly the previous layer, sometimes further back, like a real plan's fan-in.
        const back = rand() < 0.75 ? 1 : 2 + Math.floor(rand() * 2);
        const srcLayer = Math.max(0, layer - back);
        const src = srcLayer * width + Math.floor(rand() * width);
        if (src < i && !dependsOn.includes(`s${src + 1}`)) dependsOn.push(`s${src + 1}`);
      }
    }
    const description = `${VERBS[Math.floor(rand() * VERBS.length)]} ${THINGS[Math.floor(rand() * THINGS.length)]} (part ${i + 1})`;
    steps.push({ id: `s${i + 1}`, description, dependsOn });
  }
  return steps;
}

/** run_started + plan_created + one step_added per step. */
export function syntheticPlanEvents(count: number, stamper = new EventStamper(), runId = 'run-bench'): RunEvent[] {
  const events: RunEvent[] = [
    stamper.stamp({ type: 'run_started', runId, task: `Synthetic task with ${count} steps`, workspace: '/ws', model: 'gpt-test', baseUrl: 'http://127.0.0.1' }),
    stamper.stamp({ type: 'plan_created', title: `Synthetic plan (${count} steps)` }),
  ];
  for (const s of syntheticSteps(count)) {
    events.push(
      stamper.stamp(
        { type: 'step_added', stepId: s.id, description: s.description, dependsOn: s.dependsOn, lineage: s.id, replanAttempts: 0, origin: 'planner' },
        0,
      ),
    );
  }
  return events;
}

/**
 * A live stream of realistic non-structural events over the steps s1..sN: statuses, tool calls
 * requested and completed, notes, outputs, LLM usage and logs. `next()` returns one event.
 */
export function liveEventSource(stepCount: number, stamper: EventStamper, seed = 7): { next(): RunEvent } {
  const rand = prng(seed);
  let callNo = 0;
  const open: Array<{ stepId: string; callId: string }> = [];
  return {
    next(): RunEvent {
      const stepId = `s${1 + Math.floor(rand() * stepCount)}`;
      const r = rand();
      if (r < 0.25) {
        const callId = `call_${callNo++}`;
        open.push({ stepId, callId });
        return stamper.stamp(
          {
            type: 'tool_call_requested',
            stepId,
            call: {
              id: callId,
              index: 0,
              turn: 1,
              name: 'read_file',
              requestedName: 'read_file',
              nameResolution: 'exact',
              arguments: `{"path":"src/file${callNo}.ts"}`,
              rawArguments: `{"path":"src/file${callNo}.ts"}`,
              isComplete: true,
              finishReason: 'tool_calls',
            },
          },
          1,
        );
      }
      if (r < 0.5 && open.length > 0) {
        const { stepId: sid, callId } = open.shift()!;
        const ok = rand() < 0.85;
        return stamper.stamp(
          {
            type: 'tool_call_completed',
            stepId: sid,
            callId,
            status: ok ? 'success' : 'error',
            result: ok ? 'export const x = 1;\n'.repeat(3) : 'ENOENT: no such file',
            error: !ok,
            durationMs: 12,
          },
          1,
        );
      }
      if (r < 0.7) {
        const statuses = ['in_progress', 'completed', 'failed', 'not_started'] as const;
        return stamper.stamp({ type: 'step_status_changed', stepId, status: statuses[Math.floor(rand() * statuses.length)] }, 1);
      }
      if (r < 0.8) return stamper.stamp({ type: 'step_output', stepId, output: 'Found the relevant function.' }, 1);
      if (r < 0.88)
        return stamper.stamp(
          {
            type: 'llm_request',
            purpose: 'executor',
            stepId,
            requestedModel: 'gpt-test',
            ok: true,
            attempts: [],
            usage: { promptTokens: 120, completionTokens: 30 },
            durationMs: 300,
          },
          1,
        );
      if (r < 0.94) return stamper.stamp({ type: 'step_output', stepId, output: `Output of ${stepId} at ${stamper.seq}` }, 1);
      return stamper.stamp({ type: 'log', level: 'debug', message: 'tick', stepId }, 1);
    },
  };
}
