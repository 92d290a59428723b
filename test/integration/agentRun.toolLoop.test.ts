import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventsOf, runAgainst, tempWorkspace } from '../support/agentHarness';
import { call, json, message, route, sequence, toolCalls, toolMessages } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';

const onePlan = (step: string) => json({ title: 'one step', steps: [step], dependencies: {} });

describe('agent run: the step tool loop through the scripted endpoint', () => {
  const server = useScriptedServer();

  it('answers {} for read_file with the invalid payload, and the model retries with a path that works', async () => {
    const workspace = tempWorkspace();
    writeFileSync(join(workspace, 'notes.md'), 'remember the milk');
    const executor = sequence(
      toolCalls(call('read_file', {})),
      (req) => {
        const [reply] = toolMessages(req);
        const payload = JSON.parse(reply.content);
        assert.equal(payload.tool, 'read_file');
        assert.deepEqual(payload.receivedArgs, {});
        assert.match(payload.error, /path/);
        return toolCalls(call('read_file', { path: 'notes.md' }));
      },
      (req) => {
        assert.match(toolMessages(req)[0].content, /remember the milk/);
        return message('The note says to remember the milk.');
      },
    );
    server().setHandler(route({ planner: onePlan('Read notes.md'), executor, 'tool-call-repair': json({ repairs: [] }), aggregator: message('done') }));
    const { result } = await runAgainst(server(), { workspace });
    server().assertNoRejections();
    assert.equal(result.status, 'completed', result.error);
    const calls = result.snapshot.steps[0].toolCalls;
    assert.deepEqual(
      calls.map((c) => c.status),
      ['error', 'success'],
    );
  });

  it('keeps the first 20 of 25 calls, trims the replayed message, and records the limit', async () => {
    const workspace = tempWorkspace();
    const many = Array.from({ length: 25 }, (_, i) => call('create_directory', { path: `d${i}` }));
    let secondTurnAssistant: any;
    const executor = sequence(toolCalls(...many), (req) => {
      secondTurnAssistant = req.body.messages.find((m: any) => m.role === 'assistant');
      return message('made directories');
    });
    server().setHandler(route({ planner: onePlan('Make 25 folders'), executor, aggregator: message('done') }));
    const { result, events } = await runAgainst(server(), { workspace });
    server().assertNoRejections();
    assert.equal(result.snapshot.steps[0].toolCalls.length, 20);
    assert.equal(secondTurnAssistant.tool_calls.length, 20);
    const audit = eventsOf(events, 'step_audit').find((e) => e.kind === 'tool_calls_per_turn')!;
    assert.equal(audit.data.toolCallsTotal, 25);
    assert.equal(audit.data.toolCallsExecuted, 20);
    assert.equal(audit.data.toolCallsOmitted, 5);
    assert.equal(audit.data.toolCallsLimit, 20);
    assert.equal((audit.data.omittedNamesSample as string[]).length, 5);
  });

  it('stops an endless tool loop at maxStepsPerTurn and fails the step with max_steps_exceeded', async () => {
    let n = 0;
    server().setHandler(
      route({
        planner: onePlan('Loop forever'),
        executor: () => toolCalls(call('create_directory', { path: `loop${n++}` })),
        replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {} }),
        aggregator: message('stopped'),
      }),
    );
    const { result } = await runAgainst(server(), { settings: { 'cortex.limits.maxStepsPerTurn': 4 } });
    server().assertNoRejections();
    const step = result.snapshot.steps[0];
    assert.equal(step.output, 'Stopped: exceeded max_steps_per_turn.');
    assert.equal(step.verdict?.passed, false);
    assert.match(step.verdict?.reason ?? '', /max_steps_exceeded/);
    assert.equal(server().requests.filter((r) => r.purpose === 'executor').length, 4);
  });

  it('stops a model that repeats the identical call three times in a row', async () => {
    server().setHandler(
      route({
        planner: onePlan('List files'),
        executor: () => toolCalls(call('list_directory', { path: '.' })),
        replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {} }),
        aggregator: message('stopped'),
      }),
    );
    const { result } = await runAgainst(server());
    const step = result.snapshot.steps[0];
    assert.match(step.output ?? '', /repeated the same tool call 3 times/);
    assert.equal(server().requests.filter((r) => r.purpose === 'executor').length, 3);
  });

  it('runs identical read-only calls of one batch once, records the repeat as reusing that result, and still answers both ids', async () => {
    const workspace = tempWorkspace();
    writeFileSync(join(workspace, 'a.txt'), 'A');
    const executor = sequence(toolCalls(call('read_file', { path: 'a.txt' }, 'call_a'), call('read_file', { path: 'a.txt' }, 'call_b')), (req) => {
      const replies = toolMessages(req);
      assert.deepEqual(
        replies.map((r) => r.tool_call_id),
        ['call_a', 'call_b'],
      );
      assert.match(
        replies[1].content,
        /^Same tool and arguments as call call_a, which only reads \(or is idempotent\): not run again; the result of call_a:\n/,
      );
      return message('read twice');
    });
    server().setHandler(route({ planner: onePlan('Read a.txt'), executor, aggregator: message('done') }));
    const { result, events } = await runAgainst(server(), { workspace });
    server().assertNoRejections();
    assert.equal(result.status, 'completed', result.error);
    const batch = eventsOf(events, 'step_audit').find((e) => e.kind === 'tool_batch')!;
    assert.equal(batch.data.executed, 1);
    assert.deepEqual(
      result.snapshot.steps[0].toolCalls.map((c) => [c.id, c.reason, c.reusedFrom]),
      [
        ['call_a', undefined, undefined],
        ['call_b', 'reused', 'call_a'],
      ],
    );
  });

  it('runs identical calls of a tool that changes things each time (write_file twice)', async () => {
    const workspace = tempWorkspace();
    const same = { path: 'log.txt', content: 'x' };
    const executor = sequence(toolCalls(call('write_file', same, 'w1'), call('write_file', same, 'w2')), (req) => {
      assert.deepEqual(
        toolMessages(req).map((r) => r.tool_call_id),
        ['w1', 'w2'],
      );
      return message('wrote twice');
    });
    server().setHandler(route({ planner: onePlan('Write log.txt'), executor, aggregator: message('done') }));
    const { result, events } = await runAgainst(server(), { workspace, settings: { 'cortex.policy.tools': { write_file: 'allow' } } });
    assert.equal(result.status, 'completed', result.error);
    assert.equal(eventsOf(events, 'step_audit').find((e) => e.kind === 'tool_batch')!.data.executed, 2);
    assert.ok(result.snapshot.steps[0].toolCalls.every((c) => c.reusedFrom === undefined && c.reason === undefined));
  });

  it('with parallelToolCalls off, handles only the first call and replays only it', async () => {
    const executor = sequence(toolCalls(call('create_directory', { path: 'one' }), call('create_directory', { path: 'two' })), (req) => {
      const assistant = req.body.messages.find((m: any) => m.role === 'assistant');
      assert.equal(assistant.tool_calls.length, 1);
      return message('made one');
    });
    server().setHandler(route({ planner: onePlan('Make folders'), executor, aggregator: message('done') }));
    const { result } = await runAgainst(server(), { settings: { 'cortex.execution.parallelToolCalls': false } });
    server().assertNoRejections();
    assert.deepEqual(
      result.snapshot.steps[0].toolCalls.map((c) => c.arguments),
      ['{"path":"one"}'],
    );
  });

  it('isolates a failing call from its siblings and ends the step when every call of a batch fails', async () => {
    const executor = sequence(toolCalls(call('read_file', { path: 'missing.txt' }), call('create_directory', { path: 'ok' })), (req) => {
      const [failed, ok] = toolMessages(req);
      assert.match(failed.content, /^Error:/);
      assert.doesNotMatch(ok.content, /^Error:/);
      return toolCalls(call('read_file', { path: 'nope1.txt' }), call('read_file', { path: 'nope2.txt' }));
    });
    server().setHandler(
      route({
        planner: onePlan('Read things'),
        executor,
        replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {} }),
        aggregator: message('done'),
      }),
    );
    const { result } = await runAgainst(server());
    const step = result.snapshot.steps[0];
    assert.equal(step.output, 'All tool calls failed. Please check the error messages and try again.');
    assert.match(step.verdict?.reason ?? '', /all_tool_calls_failed|All tool calls failed/i);
    assert.deepEqual(
      step.toolCalls.map((c) => c.status),
      ['error', 'success', 'error', 'error'],
    );
  });
});
