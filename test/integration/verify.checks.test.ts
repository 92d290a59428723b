import assert from 'node:assert/strict';
import { eventsOf, runAgainst } from '../support/agentHarness';
import { json, message, route, sequence } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';

// The verifier's own command runs at the edges (docs/design.md, “The verifier and how a step
// ends”): a cancel while one waits for approval, an untrusted workspace that runs no commands,
// and a check run that never counts as the step's own work.

describe("the verifier's check commands", function () {
  this.timeout(30_000);
  const server = useScriptedServer();

  it('a cancel while a check command waits for approval ends the step as cancelled, without a replan', async () => {
    server().setHandler(
      route({
        planner: json({ title: 'c', steps: [{ description: 'Build it', expects: [{ command: 'node build.js', exit: 0 }] }] }),
        executor: message('Built.'),
        aggregator: message('done'),
      }),
    );
    const { result, events } = await runAgainst(server(), {
      onApproval: (_request, _broker, run) => setTimeout(() => run.cancel('cancelled by the user'), 20),
    });
    assert.equal(result.status, 'cancelled');
    const failed = eventsOf(events, 'step_status_changed').find((e) => e.status === 'failed');
    assert.equal(failed?.reason, 'cancelled');
    assert.equal(eventsOf(events, 'subgraph_replaced').length, 0);
    assert.equal(
      server()
        .chatRequests()
        .filter((r) => r.purpose === 'replanner').length,
      0,
    );
  });

  it('in an untrusted workspace a command check fails saying commands cannot run there', async () => {
    server().setHandler(
      route({
        planner: json({ title: 'u', steps: [{ description: 'Check the build', expects: [{ command: 'true', exit: 0 }] }] }),
        executor: message('Checked.'),
        replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {}, reason: 'no commands here' }),
        aggregator: message('done'),
      }),
    );
    const { events } = await runAgainst(server(), { trusted: false });
    const [verdict] = eventsOf(events, 'step_verified');
    assert.equal(verdict.passed, false);
    assert.match(verdict.checks?.[0].detail ?? '', /the command did not run: run_command is not available in this run/);
  });

  it("the verifier's run is a marked call of the step: evidence for its check, never the step's own work", async () => {
    server().setHandler(
      route({
        planner: json({ title: 'v', steps: [{ description: 'Say hi', expects: [{ command: 'true', exit: 0 }, { called: 'run_command' }] }] }),
        executor: message('Hi.'),
        replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {}, reason: 'x' }),
        aggregator: message('done'),
      }),
    );
    const { events, result } = await runAgainst(server());
    const [verdict] = eventsOf(events, 'step_verified');
    assert.deepEqual(
      verdict.checks?.map((c) => [c.kind, c.passed]),
      [
        ['command', true],
        ['called', false],
      ],
    );
    const step = [...result.snapshot.steps, ...result.snapshot.replacedSteps][0];
    assert.equal(step.toolCalls.length, 1);
    assert.equal(step.toolCalls[0].id, verdict.checks?.[0].evidence?.callId);
    assert.equal(step.toolCalls[0].audit?.verifierCheck, 0);
    assert.equal(step.toolCalls[0].exitCode, 0);
    // `true` is on the read-only list: it ran without asking.
    assert.equal(eventsOf(events, 'tool_call_awaiting_approval').length, 0);
  });

  it('a plan with an invalid check is refused with the reason, and the planner is asked again', async () => {
    server().setHandler(
      route({
        planner: sequence(
          json({ title: 'p', steps: [{ description: 'Write a.txt', expects: [{ changed: 'a.txt', file: 'a.txt' }] }] }),
          json({ title: 'p', steps: [{ description: 'Write a.txt', expects: [{ exists: '../outside.txt' }] }] }),
        ),
        executor: message('unused'),
        aggregator: message('done'),
      }),
    );
    const { result, events } = await runAgainst(server());
    assert.equal(result.status, 'failed');
    const planners = server()
      .chatRequests()
      .filter((r) => r.purpose === 'planner');
    assert.equal(planners.length, 2);
    assert.match(
      JSON.stringify(planners[1].body.messages),
      /That reply is not a valid plan: the JSON is not a valid plan: steps\[0\]\.expects\[0\]: unknown key \\"file\\" in a \\"changed\\" check/,
    );
    assert.match(result.error ?? '', /steps\[0\]\.expects\[0\]: "exists": the path "\.\.\/outside\.txt" leaves the workspace/);
    assert.equal(eventsOf(events, 'step_added').length, 0);
  });
});
