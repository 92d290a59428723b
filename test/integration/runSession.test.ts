import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AgentRun } from '../../src/core/agent/agentRun';
import { RunSession } from '../../src/core/agent/runSession';
import { parseConfig } from '../../src/core/config/configSchema';
import { acquireRunLock, lockFileFor } from '../../src/core/resume/runLock';
import { readTraceSync } from '../support/traceFile';
import { tempWorkspace } from '../support/agentHarness';
import { json, message, route } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';
import type { ScriptedServer } from '../support/scriptedServer';

// The one run session the extension host and the CLI drive runs with: its trace, its lock, and
// what cancel and interrupt do to them, on a real AgentRun against the scripted endpoint.

async function sessionFor(server: ScriptedServer, workspace: string, trace: string): Promise<RunSession> {
  const config = parseConfig({ 'cortex.llm.baseUrl': server.baseUrl, 'cortex.llm.model': 'test-model', 'cortex.llm.maxRetries': 0 });
  return new RunSession({
    trace: { file: trace, append: false },
    lock: await acquireRunLock(trace),
    build: (log, approvals) => {
      const agent = new AgentRun({ task: 'say hi', workspaceRoot: workspace, config, apiKey: 'k', log, approvals, trusted: true });
      return Promise.resolve({ agent, run: () => agent.start() });
    },
  });
}

describe('run session', () => {
  const server = useScriptedServer();

  it('writes the trace, holds the lock while the run goes, and gives both back at the end', async () => {
    server().setHandler(route({ planner: json({ title: 'Hi', steps: ['Say hi'] }), executor: message('hi'), aggregator: message('Said hi.') }));
    const workspace = tempWorkspace();
    const trace = join(tempWorkspace('cortex-trace-'), 'run.jsonl');
    const session = await sessionFor(server(), workspace, trace);
    assert.ok(existsSync(lockFileFor(trace)), 'the lock is held from the start');
    const result = await session.run();
    assert.equal(result.status, 'completed', result.error);
    await session.dispose();
    await session.dispose();
    assert.equal(existsSync(lockFileFor(trace)), false, 'the lock is released');
    const { events } = readTraceSync(trace);
    assert.equal(events.at(-1)?.type, 'run_finished');
    assert.equal(session.interrupted, undefined);
  });

  it('applies a cancel that came before the run was built', async () => {
    server().setHandler(route({ planner: json({ title: 'Hi', steps: ['Say hi'] }), executor: message('hi'), aggregator: message('Said hi.') }));
    const trace = join(tempWorkspace('cortex-trace-'), 'run.jsonl');
    const session = await sessionFor(server(), tempWorkspace(), trace);
    session.cancel('stopped early');
    const result = await session.run();
    await session.dispose();
    assert.equal(result.status, 'cancelled');
    assert.equal(server().requests.length, 0, 'nothing was asked of the model');
  });

  it('an interrupt stops the trace without run_finished and releases the lock once the trace is written', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    server().setHandler(async (request) => {
      if (request.purpose === 'planner') return json({ title: 'Hi', steps: ['Say hi'] });
      await held;
      return message('hi');
    });
    const trace = join(tempWorkspace('cortex-trace-'), 'run.jsonl');
    const session = await sessionFor(server(), tempWorkspace(), trace);
    const running = session.run();
    while (!server().requests.some((r) => r.purpose === 'executor')) await new Promise((r) => setTimeout(r, 10));
    await session.interrupt('interrupted (SIGTERM)');
    assert.equal(existsSync(lockFileFor(trace)), false, 'the next driver may take the run once the recorded lines are written');
    release();
    await running;
    await session.dispose();
    assert.equal(session.interrupted, 'interrupted (SIGTERM)');
    const { events } = readTraceSync(trace);
    assert.equal(
      events.some((e) => e.type === 'run_finished'),
      false,
      'the trace stays resumable',
    );
  });
});
