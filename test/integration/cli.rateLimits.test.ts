import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readTraceSync } from '../support/traceFile';
import { tempWorkspace } from '../support/agentHarness';
import { error, json, message, route, sequence } from '../support/scriptedReplies';
import type { Reply } from '../support/scriptedServer';
import { runCliInProcess } from '../support/inProcessCli';
import { useScriptedServer } from '../support/useScriptedServer';

// Rate limits and quota through `cortex run` against the scripted endpoint (docs/design.md, “LLM requests:
// retries and failover”): a 429 waits as long as the endpoint asks (Retry-After in seconds or as a date, or its
// own "retry in N s" words) within cortex.llm.maxRetries and says so while it waits; an account
// out of quota is not retried and ends the run with exit 3.

const cli = (argv: string[]) => runCliInProcess(argv);

const count = (text: string, part: string) => text.split(part).length - 1;

describe('cortex CLI: rate limits and quota', function () {
  this.timeout(30_000);
  const server = useScriptedServer();
  let workspace: string;
  let trace: string;
  beforeEach(() => {
    workspace = tempWorkspace();
    trace = join(tempWorkspace('cortex-rate-'), 'trace.jsonl');
  });
  const run = () => cli(['run', '--workspace', workspace, '--base-url', server().baseUrl, '--model', 'm', '--trace', trace, 'say hi']);

  /** The planner's first answer is `first`, then the plan; returns when each planner request arrived. */
  function plannerAnswers(first: Reply): number[] {
    const arrived: number[] = [];
    const planner = sequence(first, json({ title: 't', steps: ['Say hi'], dependencies: {} }));
    server().setHandler(
      route({
        planner: (req) => (arrived.push(Date.now()), planner(req)),
        executor: message('hi'),
        aggregator: message('Said hi.'),
      }),
    );
    return arrived;
  }

  const retryLogs = () =>
    readTraceSync(trace)
      .events.filter((e) => e.type === 'log' && (e.data as { kind?: string } | undefined)?.kind === 'llm_retry')
      .map((e) => e as unknown as { message: string; data: { delayMs: number } });

  it('429 insufficient_quota: not retried, exit 3, one sentence saying the account is out of quota', async () => {
    server().setHandler(() =>
      error(429, 'You exceeded your current quota, please check your plan and billing details.', { type: 'insufficient_quota', code: 'insufficient_quota' }),
    );
    const result = await run();
    assert.equal(result.code, 3, result.stderr);
    assert.equal(server().chatRequests().length, 1, 'a quota error was retried');
    assert.equal(count(result.stderr, 'out of quota'), 1, result.stderr);
    assert.match(
      result.stderr,
      /^run failed: The account behind http:\/\/127\.0\.0\.1:\d+\/v1 is out of quota \(429 insufficient_quota\): You exceeded your current quota, please check your plan and billing details\. Retrying does not help: add credit or raise the limit with the provider, or use another key\.$/m,
    );
    assert.doesNotMatch(result.stderr, /retrying in/);
  });

  it('429 with Retry-After in seconds: waits that long, says so while waiting, then goes on', async () => {
    const arrived = plannerAnswers(error(429, 'Rate limit reached for requests', { headers: { 'retry-after': '1' } }));
    const result = await run();
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'Said hi.');
    assert.ok(arrived[1] - arrived[0] >= 950, `retried after ${arrived[1] - arrived[0]} ms`);
    assert.equal(count(result.stderr, 'rate limited by the endpoint; retrying in 1 s (retry 1 of 2)'), 1, result.stderr);
    assert.deepEqual(
      retryLogs().map((e) => [e.message, e.data.delayMs]),
      [['rate limited by the endpoint; retrying in 1 s (retry 1 of 2)', 1000]],
    );
  });

  it('429 with Retry-After as an HTTP date, and 429 with only "Please retry in 1.5s" in its message', async () => {
    const at = new Date(Math.ceil((Date.now() + 2500) / 1000) * 1000);
    let arrived = plannerAnswers(error(429, 'Slow down', { headers: { 'retry-after': at.toUTCString() } }));
    let result = await run();
    assert.equal(result.code, 0, result.stderr);
    assert.ok(arrived[1] >= at.getTime() - 50, `retried ${at.getTime() - arrived[1]} ms before the date`);
    assert.match(result.stderr, /rate limited by the endpoint; retrying in [1-3](\.\d)? s \(retry 1 of 2\)/);

    arrived = plannerAnswers(error(429, 'Resource has been exhausted (e.g. check quota). Please retry in 1.5s.', { type: 'RESOURCE_EXHAUSTED' }));
    result = await run();
    assert.equal(result.code, 0, result.stderr);
    assert.ok(arrived[1] - arrived[0] >= 1450, `retried after ${arrived[1] - arrived[0]} ms`);
    assert.match(result.stderr, /rate limited by the endpoint; retrying in 1\.5 s \(retry 1 of 2\)/);
  });

  it('a wait longer than Cortex waits (Retry-After: 3600) fails at once, saying how long the endpoint asked for', async () => {
    server().setHandler(() => error(429, 'Daily limit reached', { headers: { 'retry-after': '3600' } }));
    const started = Date.now();
    const result = await run();
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(server().chatRequests().length, 1);
    assert.match(
      result.stderr,
      /The endpoint is rate limiting requests \(429\): Daily limit reached\. It asks to wait 3600 s, longer than the 60 s Cortex waits before a retry; try again later\./,
    );
  });
});
