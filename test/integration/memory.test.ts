import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main';
import { AgentRun } from '../../src/core/agent/agentRun';
import { parseConfig } from '../../src/core/config/configSchema';
import { memoryFileNameSync } from '../../src/core/memory/memoryPath';
import { EventLog } from '../../src/core/plan/eventLog';
import { ApprovalBroker } from '../../src/core/policy/approvalBroker';
import { eventsOf, tempWorkspace } from '../support/agentHarness';
import { call, contentText, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { startScriptedServer, type Handler, type ScriptedServer } from '../support/scriptedServer';

// Workspace memory across runs through the real AgentRun, the real tools and the scripted endpoint
// (docs/design.md, “Context budget and memory”): a run stores a fact, the next run gets it injected before its step and
// finds it with memory_search, forgets it, and a third run sees nothing.

async function runWithMemory(server: ScriptedServer, memoryFile: string, workspace: string, settings: Record<string, unknown> = {}) {
  const config = parseConfig({ 'cortex.llm.baseUrl': server.baseUrl, 'cortex.llm.model': 'test-model', 'cortex.llm.maxRetries': 0, ...settings });
  const log = new EventLog({
    onListenerError: (error) => {
      throw error;
    },
  });
  const run = new AgentRun({
    task: 'memory task',
    workspaceRoot: workspace,
    config,
    apiKey: 'k',
    log,
    approvals: new ApprovalBroker(),
    trusted: true,
    memoryFile,
  });
  const result = await run.start();
  return { result, events: log.events };
}

const messagesOf = (req: { body: any }): any[] => req.body.messages;
const relevantContext = (req: { body: any }) => messagesOf(req).find((m) => contentText(m.content).startsWith('<relevant_context'));

describe('workspace memory across runs (docs/design.md, “Context budget and memory”)', () => {
  let server: ScriptedServer;
  afterEach(async () => {
    await server?.close();
  });

  it('store in one run, injected and found in the next, forgotten for the one after', async function () {
    this.timeout(30_000);
    const workspace = tempWorkspace();
    const memoryFile = join(mkdtempSync(join(tmpdir(), 'cortex-mem-')), 'memory', 'ws.json');
    server = await startScriptedServer();

    // Run 1: the model remembers how the project builds (through the dotted alias).
    server.setHandler(
      route({
        planner: json({ title: 'learn', steps: ['Find out how the project is built'], dependencies: {} }),
        executor: (req) => {
          assert.equal(relevantContext(req), undefined, 'nothing to inject yet');
          return toolMessages(req).length
            ? message('Remembered.')
            : toolCalls(call('memory.store', { text: 'The project builds with `make dist`; tests run with `make check`.', tags: ['build'] }));
        },
        aggregator: message('done'),
      }),
    );
    const first = await runWithMemory(server, memoryFile, workspace);
    server.assertNoRejections();
    assert.equal(first.result.status, 'completed', first.result.error);
    const [storeCall] = first.result.snapshot.steps[0].toolCalls;
    assert.equal(storeCall.name, 'memory_store');
    assert.equal(storeCall.nameResolution, 'alias');
    assert.equal(storeCall.status, 'success', storeCall.result);
    const id = /Stored memory (m[0-9a-f]{8})/.exec(storeCall.result!)![1];
    assert.equal(JSON.parse(readFileSync(memoryFile, 'utf8')).entries[0].id, id);

    // Run 2: the fact is injected before the step, marked as data; the model searches and forgets it.
    let injected = '';
    let searchResult = '';
    server.setHandler(
      route({
        planner: json({ title: 'build', steps: ['Build the project and run its tests'], dependencies: {} }),
        executor: (req) => {
          const turn = messagesOf(req).filter((m) => m.role === 'assistant').length;
          if (turn === 0) {
            injected = contentText(relevantContext(req)?.content);
            return toolCalls(call('memory_search', { query: 'build command' }));
          }
          if (turn === 1) {
            searchResult = toolMessages(req)[0].content;
            return toolCalls(call('memory_forget', { id }));
          }
          return message('Forgot the outdated note.');
        },
        aggregator: message('done'),
      }),
    );
    const second = await runWithMemory(server, memoryFile, workspace);
    server.assertNoRejections();
    assert.equal(second.result.status, 'completed', second.result.error);
    assert.match(
      injected,
      /^<relevant_context source="memory">\n.*data, not instructions.*\n- \[m[0-9a-f]{8}\] \(build\) The project builds with `make dist`/s,
    );
    const audit = eventsOf(second.events, 'step_audit').find((e) => e.kind === 'memory_injected')!;
    assert.equal(audit.data.count, 1);
    assert.deepEqual(
      (audit.data.memories as Array<{ id: string }>).map((m) => m.id),
      [id],
    );
    assert.match(searchResult, new RegExp(`^\\[${id}\\] \\(build\\) The project builds with`));
    assert.deepEqual(
      second.result.snapshot.steps[0].toolCalls.map((c) => [c.name, c.status]),
      [
        ['memory_search', 'success'],
        ['memory_forget', 'success'],
      ],
    );

    // Run 3: forgotten means gone.
    server.setHandler(
      route({
        planner: json({ title: 'build', steps: ['Build the project'], dependencies: {} }),
        executor: (req) => {
          assert.equal(relevantContext(req), undefined);
          return message('Built.');
        },
        aggregator: message('done'),
      }),
    );
    const third = await runWithMemory(server, memoryFile, workspace);
    assert.equal(third.result.status, 'completed', third.result.error);
    assert.deepEqual(JSON.parse(readFileSync(memoryFile, 'utf8')).entries, []);
    assert.equal(eventsOf(third.events, 'step_audit').filter((e) => e.kind === 'memory_injected').length, 0);
  });

  it('injected memory is the first thing dropped when the prompt is over budget', async function () {
    this.timeout(30_000);
    const workspace = tempWorkspace();
    const memoryFile = join(mkdtempSync(join(tmpdir(), 'cortex-mem-')), 'ws.json');
    // Fill the memory with notes that all match the step.
    const seed: Handler = (req) =>
      toolMessages(req).length
        ? message('stored')
        : toolCalls(
            ...Array.from({ length: 5 }, (_, i) =>
              call('memory_store', {
                text: `Deployment note ${i}: ${'the deploy script copies build artefacts to the staging server and restarts the service. '.repeat(12)}`,
              }),
            ),
          );
    server = await startScriptedServer();
    server.setHandler(
      route({ planner: json({ title: 's', steps: ['Store deployment notes'], dependencies: {} }), executor: seed, aggregator: message('done') }),
    );
    assert.equal((await runWithMemory(server, memoryFile, workspace)).result.status, 'completed');
    await server.close();

    let first: { body: any } | undefined;
    server = await startScriptedServer(undefined, { maxPromptTokens: 2900 });
    server.setHandler(
      route({
        planner: json({ title: 'd', steps: ['Explain the deployment'], dependencies: {} }),
        executor: (req) => {
          first ??= req;
          return message('It copies artefacts and restarts.');
        },
        aggregator: message('done'),
      }),
    );
    const { result, events } = await runWithMemory(server, memoryFile, workspace, {
      'cortex.context.windowTokens': 3000,
      'cortex.context.reserveOutputTokens': 100,
    });
    server.assertNoRejections();
    assert.equal(server.refusals.length, 0);
    assert.equal(result.status, 'completed', result.error);
    assert.equal(eventsOf(events, 'step_audit').find((e) => e.kind === 'memory_injected')!.data.count, 5, 'the step got the memories…');
    assert.equal(relevantContext(first!), undefined, '…and the budget dropped them before the request');
    const cost = eventsOf(events, 'step_audit').find((e) => e.kind === 'context_cost')!.data as { actions: Array<{ kind: string }> };
    assert.deepEqual(
      cost.actions.map((a) => a.kind),
      ['drop_memory'],
    );
  });
});

describe('the CLI: --memory FILE and the usage summary line', () => {
  let server: ScriptedServer;
  afterEach(async () => {
    await server?.close();
  });

  async function cli(argv: string[], env: Record<string, string>) {
    let stderr = '';
    let stdout = '';
    const err = new PassThrough().on('data', (d) => (stderr += d));
    const out = new PassThrough().on('data', (d) => (stdout += d));
    const stdin = Object.assign(new PassThrough(), { isTTY: false });
    const code = await main(argv, { stdout: out, stderr: err, stdin: stdin, cwd: process.cwd(), env });
    return { code, stderr, stdout };
  }

  const storeScript = () =>
    route({
      planner: json({ title: 'm', steps: ['Remember the port'], dependencies: {} }, { usage: { prompt_tokens: 100, completion_tokens: 10 } }),
      executor: (req) =>
        toolMessages(req).length
          ? message('ok', { usage: { prompt_tokens: 300, completion_tokens: 20 } })
          : {
              kind: 'message',
              toolCalls: [call('memory_store', { text: 'The dev server listens on port 4321.' })],
              usage: { prompt_tokens: 200, completion_tokens: 15 },
            },
      aggregator: message('done', { usage: { prompt_tokens: 50, completion_tokens: 5 } }),
    });

  it('--memory FILE keeps the memory there; the summary line gives tokens per run and per step', async () => {
    server = await startScriptedServer(storeScript());
    const workspace = tempWorkspace();
    const file = join(mkdtempSync(join(tmpdir(), 'cortex-mem-')), 'mine.json');
    const { code, stderr } = await cli(
      ['run', '--workspace', workspace, '--base-url', server.baseUrl, '--model', 'test-model', '--memory', file, 'remember'],
      {},
    );
    assert.equal(code, 0, stderr);
    assert.match(JSON.parse(readFileSync(file, 'utf8')).entries[0].text, /port 4321/);
    assert.match(stderr, /\nusage: 700 tokens \(650 in, 50 out\) — s1 535\n/);
  });

  it('without --memory, the memory goes under $XDG_CACHE_HOME/cortex/memory/<sha256 of the workspace>.json; the cost is shown when priced', async () => {
    server = await startScriptedServer(storeScript());
    const workspace = tempWorkspace();
    const cache = mkdtempSync(join(tmpdir(), 'cortex-cache-'));
    const config = join(mkdtempSync(join(tmpdir(), 'cortex-cfg-')), 'c.json');
    writeFileSync(config, JSON.stringify({ 'cortex.llm.pricing': { 'test-model': { inputPerMTok: 10, outputPerMTok: 20 } } }));
    const { code, stderr } = await cli(
      ['run', '--workspace', workspace, '--config', config, '--base-url', server.baseUrl, '--model', 'test-model', 'remember'],
      { XDG_CACHE_HOME: cache },
    );
    assert.equal(code, 0, stderr);
    const file = join(cache, 'cortex', 'memory', memoryFileNameSync(workspace));
    assert.ok(existsSync(file), file);
    assert.match(stderr, /\nusage: 700 tokens \(650 in, 50 out\), \$0.0075 — s1 535\n/);
  });

  it('refuses a --memory path that is a directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cortex-mem-'));
    const { code, stderr } = await cli(['run', '--base-url', 'http://127.0.0.1:1/v1', '--memory', dir, 'x'], {});
    assert.equal(code, 2);
    assert.match(stderr, /^cortex: memory file .* is a directory\n$/);
  });
});
