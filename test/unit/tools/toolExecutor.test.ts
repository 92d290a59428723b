import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { z } from 'zod';
import { executeTool, HARD_STOP_GRACE_MS } from '../../../src/core/tools/toolExecutor';
import { type ToolDefinition, ToolError } from '../../../src/core/tools/toolTypes';
import { toolContext } from './workspaceFixture';

function tool(run: ToolDefinition['run']): ToolDefinition {
  return {
    name: 'probe',
    description: 'test tool',
    schema: z.strictObject({}),
    kind: 'other',
    readOnly: true,
    origin: { kind: 'builtin' },
    idempotent: true,
    changes: 'none',
    run,
  };
}

describe('executeTool', function () {
  this.timeout(10_000);

  it('returns the output and duration of a successful run', async () => {
    const result = await executeTool(
      tool(async () => 'fine'),
      {},
      toolContext('/tmp'),
      1000,
    );
    assert.equal(result.ok, true);
    assert.equal(result.output, 'fine');
    assert.ok(result.durationMs >= 0);
    assert.equal(
      (
        await executeTool(
          tool(async () => ''),
          {},
          toolContext('/tmp'),
          1000,
        )
      ).output,
      '(no output)',
    );
  });

  it('turns a ToolError into its message and any other error into a sentence without a stack', async () => {
    const toolError = await executeTool(
      tool(async () => {
        throw new ToolError('clear problem');
      }),
      {},
      toolContext('/tmp'),
      1000,
    );
    assert.deepEqual([toolError.ok, toolError.output], [false, 'clear problem']);
    const crash = await executeTool(
      tool(async () => {
        throw new TypeError('x is undefined');
      }),
      {},
      toolContext('/tmp'),
      1000,
    );
    assert.deepEqual([crash.ok, crash.output], [false, "'probe' failed: x is undefined"]);
    assert.ok(!crash.output.includes('    at '));
  });

  it('caps and strips the output', async () => {
    const result = await executeTool(
      tool(async () => `\u001b[32m${'z'.repeat(5000)}\u001b[0m`),
      {},
      toolContext('/tmp'),
      300,
    );
    assert.ok(Buffer.byteLength(result.output) <= 300);
    assert.match(result.output, /output truncated/);
    assert.ok(!result.output.includes('\u001b'));
  });

  it('times out a tool that honours the signal, with its own message', async () => {
    const result = await executeTool(
      tool((_args, ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new ToolError('stopped politely'))))),
      {},
      toolContext('/tmp', { timeoutMs: 100 }),
      1000,
    );
    assert.deepEqual([result.ok, result.output, result.timedOut], [false, 'stopped politely', true]);
  });

  it('hard-stops a tool that ignores the signal', async () => {
    const started = Date.now();
    const result = await executeTool(
      tool(() => new Promise(() => {})),
      {},
      toolContext('/tmp', { timeoutMs: 100 }),
      1000,
    );
    const took = Date.now() - started;
    assert.ok(took >= 100 && took < 100 + HARD_STOP_GRACE_MS + 1000, `took ${took} ms`);
    assert.equal(result.ok, false);
    assert.equal(result.timedOut, true);
    assert.match(result.output, /'probe' timed out after 0 s and was stopped/);
  });

  it('reports cancellation before and during a run', async () => {
    const before = new AbortController();
    before.abort();
    let ran = false;
    const skipped = await executeTool(
      tool(async () => {
        ran = true;
        return 'x';
      }),
      {},
      toolContext('/tmp', { signal: before.signal }),
      1000,
    );
    assert.deepEqual([skipped.ok, skipped.cancelled, ran], [false, true, false]);

    const during = new AbortController();
    const pending = executeTool(
      tool((_a, ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)))),
      {},
      toolContext('/tmp', { signal: during.signal }),
      1000,
    );
    during.abort();
    const result = await pending;
    assert.deepEqual([result.ok, result.cancelled], [false, true]);
    assert.match(result.output, /Cancelled while 'probe' was running/);
  });

  it('leaves nothing behind on the run: no listener on its signal, no timer, after success, error and timeout', async () => {
    const run = new AbortController();
    const context = toolContext('/tmp', { signal: run.signal, timeoutMs: 60_000 });
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    await executeTool(
      tool(async () => 'fine'),
      {},
      context,
      1000,
    );
    // Counted after one call: the test runner's own timer is running by then.
    const timersBefore = timers();
    await executeTool(
      tool(async () => 'fine'),
      {},
      context,
      1000,
    );
    await executeTool(
      tool(async () => {
        throw new Error('broken');
      }),
      {},
      context,
      1000,
    );
    await executeTool(
      tool((_args, ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new ToolError('stopped'))))),
      {},
      { ...context, timeoutMs: 20 },
      1000,
    );
    assert.equal(getEventListeners(run.signal, 'abort').length, 0);
    assert.equal(timers(), timersBefore);
  });
});
