import assert from 'node:assert/strict';
import type { NewRunEvent, RunEvent } from '../../../src/core/plan/events';
import { foldEvents } from '../../../src/core/plan/reducer';
import { approvalLabel, approvalReasonText, approvalSubject, callLabel } from '../../../webview/approvalText';
import { endpointFixes } from '../../../webview/endpointFixes';
import { reasonInWords, runFailureSummary, stepFailureSentence } from '../../../src/core/plan/failureText';
import { LIST_DEFAULT_STEPS, planRow } from '../../../webview/planList';
import { stepView } from '../../../webview/stepView';
import { demoPlan } from '../../support/plans/demoPlan';

// The words the panel shows for failures, approvals, endpoint errors and list rows: step
// descriptions instead of ids, commands instead of tool names, sentences instead of reason codes.

function run(events: NewRunEvent[]): RunEvent[] {
  return events.map((e, seq): RunEvent => ({ ...e, seq, time: 1_000 + seq }));
}

/** Two steps: "Write release.txt" fails verification, the replanner gives up, "Update the CHANGELOG" waits on it. */
function gaveUpRun() {
  return foldEvents(
    run([
      { type: 'run_started', runId: 'r1', task: 'Release', workspace: '/w', model: 'm', baseUrl: 'http://x' },
      { type: 'plan_created', title: 'Release' },
      { type: 'step_added', stepId: 's1', description: 'Write release.txt', dependsOn: [], lineage: 's1', replanAttempts: 2, origin: 'planner' },
      { type: 'step_added', stepId: 's2', description: 'Update the CHANGELOG', dependsOn: ['s1'], lineage: 's2', replanAttempts: 0, origin: 'planner' },
      { type: 'step_status_changed', stepId: 's1', status: 'in_progress' },
      { type: 'step_verified', stepId: 's1', passed: false, reason: "The model's reply was cut off twice while writing it.", failedCallIds: ['call_fake15'] },
      { type: 'step_status_changed', stepId: 's1', status: 'failed', reason: 'verification_failed' },
      { type: 'step_status_changed', stepId: 's1', status: 'blocked', reason: 'replan_limit_reached' },
      { type: 'step_status_changed', stepId: 's2', status: 'blocked', reason: 'upstream_blocked', blockedBy: 's1' },
    ] as NewRunEvent[]),
  );
}

describe('panel wording', () => {
  it('says why a step was blocked in a sentence with its description, the cause and the replanner giving up', () => {
    const state = gaveUpRun();
    assert.equal(
      stepFailureSentence(state, state.steps.get('s1')!),
      "Write release.txt was blocked: the model's reply was cut off twice while writing it; the replanner gave up.",
    );
    assert.equal(stepFailureSentence(state, state.steps.get('s2')!), 'Update the CHANGELOG did not run: it needs Write release.txt, which was blocked.');
    const summary = runFailureSummary(state);
    assert.match(summary, /^2 of 2 steps did not complete\. Write release\.txt was blocked: /);
    assert.match(summary, /One step after it did not run: Update the CHANGELOG\.$/);
    assert.doesNotMatch(summary, /\bs1\b|\bs2\b|replan_limit_reached|upstream_blocked|call_fake15/, 'no ids or codes');
  });

  it("puts the reason codes inside the verifier's reason into words", () => {
    const verdictRun = (reason: string, end: string) =>
      foldEvents(
        run([
          { type: 'run_started', runId: 'r1', task: 'Hi', workspace: '/w', model: 'm', baseUrl: 'http://x' },
          { type: 'step_added', stepId: 's1', description: 'Say hello', dependsOn: [], lineage: 's1', replanAttempts: 0, origin: 'planner' },
          { type: 'step_status_changed', stepId: 's1', status: 'in_progress' },
          { type: 'step_verified', stepId: 's1', passed: false, reason, failedCallIds: [] },
          { type: 'step_status_changed', stepId: 's1', status: 'failed', reason: end },
        ] as NewRunEvent[]),
      );
    let state = verdictRun('no tool calls to verify; the step ended because llm_error', 'llm_error');
    assert.equal(
      stepFailureSentence(state, state.steps.get('s1')!),
      'Say hello failed: no tool calls to verify; the step ended because the model endpoint returned an error.',
    );
    state = verdictRun('1 of 1 tool call failed; the step ended because every tool call failed (all_tool_calls_failed).', 'all_tool_calls_failed');
    assert.equal(
      stepFailureSentence(state, state.steps.get('s1')!),
      'Say hello failed: 1 of 1 tool call failed; the step ended because every tool call failed.',
    );
  });

  it('names a reply cut off at the token limit as the cause, with the file it was writing, and drops call ids', () => {
    const partial = '{"path":"release.txt","content":"1.4 rel';
    const state = foldEvents(
      run([
        { type: 'run_started', runId: 'r1', task: 'Release', workspace: '/w', model: 'm', baseUrl: 'http://x' },
        { type: 'step_added', stepId: 's1', description: 'Write release.txt', dependsOn: [], lineage: 's1', replanAttempts: 0, origin: 'planner' },
        { type: 'step_added', stepId: 's2', description: 'Tag it', dependsOn: [], lineage: 's2', replanAttempts: 0, origin: 'planner' },
        { type: 'step_status_changed', stepId: 's1', status: 'in_progress' },
        {
          type: 'tool_call_requested',
          stepId: 's1',
          call: {
            id: 'call_17_0',
            index: 0,
            turn: 1,
            name: 'write_file',
            requestedName: 'write_file',
            nameResolution: 'exact',
            arguments: partial,
            rawArguments: partial,
            isComplete: false,
            finishReason: 'length',
          },
        },
        {
          type: 'step_verified',
          stepId: 's1',
          passed: false,
          reason: '1 of 1 tool call never got a result: write_file (call_17_0, pending)',
          failedCallIds: ['call_17_0'],
        },
        { type: 'step_status_changed', stepId: 's1', status: 'failed', reason: 'verification_failed' },
        { type: 'step_status_changed', stepId: 's1', status: 'blocked', reason: 'replan_gave_up' },
        { type: 'step_status_changed', stepId: 's2', status: 'in_progress' },
        {
          type: 'step_verified',
          stepId: 's2',
          passed: false,
          reason: '1 of 2 tool calls never got a result: run_command (call_9, pending)',
          failedCallIds: ['call_9'],
        },
        { type: 'step_status_changed', stepId: 's2', status: 'failed', reason: 'verification_failed' },
      ] as NewRunEvent[]),
    );
    assert.equal(
      stepFailureSentence(state, state.steps.get('s1')!),
      "Write release.txt was blocked: the model's reply was cut off while writing release.txt; the replanner gave up.",
    );
    assert.equal(stepFailureSentence(state, state.steps.get('s2')!), 'Tag it failed: 1 of 2 tool calls never got a result: run_command (pending).');
  });

  it('puts reason codes into words and keeps an unknown one readable', () => {
    assert.equal(reasonInWords('approval_denied'), 'a required approval was denied');
    assert.equal(reasonInWords('llm_error: The endpoint failed with 502.'), 'the model endpoint failed: The endpoint failed with 502.');
    assert.equal(reasonInWords('some_new_reason'), 'some new reason');
    const state = foldEvents(demoPlan().events);
    assert.equal(stepFailureSentence(state, state.steps.get('s8')!), 'Push the branch to origin so CI runs was blocked: a required approval was denied.');
    assert.equal(stepFailureSentence(state, state.steps.get('s1')!), '', 'a completed step has no failure sentence');
  });

  it('names the command line or the file a call waits for, and why, in words', () => {
    const cmd = { toolName: 'run_command', argumentsJson: JSON.stringify({ command: 'npm publish --tag next' }) };
    assert.deepEqual(approvalSubject(cmd), { kind: 'command', text: 'npm publish --tag next', action: 'Run command' });
    assert.equal(approvalLabel(cmd), 'npm publish --tag next');
    assert.deepEqual(approvalSubject({ toolName: 'write_file', argumentsJson: '{"path":"docs/a.md","content":"x"}' }), {
      kind: 'file',
      text: 'docs/a.md',
      action: 'Write file',
    });
    assert.equal(approvalSubject({ toolName: 'everything__add', argumentsJson: '{"a":1}' }).kind, 'call');
    assert.equal(approvalLabel({ toolName: 'run_command', argumentsJson: 'not json' }), 'run_command', 'unparsable arguments fall back to the tool');
    assert.equal(
      approvalReasonText({ toolName: 'run_command', reason: 'the rule run_command: confirm', required: true, denyEffect: 'block' }),
      'Cortex asks because your cortex.policy.tools setting asks to confirm every run_command call. If you deny it, the step is blocked.',
    );
    assert.equal(
      approvalReasonText({ toolName: 'run_command', reason: '"rm" is not a default safe (read-only) command', required: false, denyEffect: 'continue' }),
      'Cortex asks because "rm" is not a default safe (read-only) command. If you deny it, the model is told and continues.',
    );
    assert.equal(callLabel({ name: 'edit_file', requestedName: 'edit_file', arguments: '{"path":"src/a.ts"}' }), 'edit_file src/a.ts');
  });

  it('offers Set API key for a rejected key, the endpoint settings for a wrong or unreachable endpoint, and Retry for every endpoint error', () => {
    assert.deepEqual(endpointFixes("The endpoint rejected the API key (401). Run 'Cortex: Set API key' or set OPENAI_API_KEY."), ['setApiKey', 'retry']);
    assert.deepEqual(endpointFixes("The endpoint refused access (403): no. Check that the API key may use model 'm'."), ['setApiKey', 'retry']);
    assert.deepEqual(
      endpointFixes('Cannot reach the LLM endpoint http://127.0.0.1:9/v1 (ECONNREFUSED). Check cortex.llm.baseUrl and that the server is running.'),
      ['openSettings', 'retry'],
    );
    assert.deepEqual(endpointFixes('http://x/v1/chat/completions was not found (404). Check that cortex.llm.baseUrl is the API root.'), [
      'openSettings',
      'retry',
    ]);
    assert.deepEqual(endpointFixes('The endpoint is rate limiting requests (429).'), ['retry']);
    assert.deepEqual(endpointFixes('1 step(s) did not complete: s1 failed (verification_failed)'), [], 'not an endpoint error');
    assert.deepEqual(endpointFixes(undefined), []);
  });

  it('gives each list row the step text, what it waits for, and how it ended', () => {
    const { events, approvals } = demoPlan();
    const state = foldEvents(events);
    const row = (id: string) => {
      const step = state.steps.get(id)!;
      return planRow(state, step, stepView(state, step, false, { approvals }));
    };
    const waiting = row('s7');
    assert.equal(waiting.tone, 'wait');
    assert.equal(waiting.activity, 'Waiting for your approval: npm test -- --grep "cli flags"');
    assert.equal(row('s8').tone, 'fail');
    assert.match(row('s8').activity, /^Push the branch to origin so CI runs was blocked: /);
    assert.equal(row('s1').tone, 'ok');
    assert.match(row('s1').activity, /^Verified/);
    assert.ok(LIST_DEFAULT_STEPS >= 6 && LIST_DEFAULT_STEPS <= 10);
  });

  it('puts a warning about one step on its row', () => {
    const state = gaveUpRun();
    state.notices = [
      { level: 'warn', message: 'call_fake15: the reply was cut off', stepId: 's1', seq: 1 },
      { level: 'warn', message: 'the sandbox is off', seq: 2 },
    ];
    const s1 = state.steps.get('s1')!;
    assert.deepEqual(planRow(state, s1, stepView(state, s1, false)).warnings, ['call_fake15: the reply was cut off']);
  });
});
