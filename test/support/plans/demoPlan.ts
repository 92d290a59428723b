import { createHash } from 'node:crypto';
import type { NewRunEvent, RunEvent } from '../../../src/core/plan/events';
import type { ApprovalRequestMessage } from '../../../src/protocol/messages';
import { EventStamper } from './syntheticPlan';

// A realistic small run for the harness screenshot and the functional checks: a completed step, a
// failed step replaced by replan 1 of 2 (with the new steps marked new), two calls awaiting approval
// (one required, one optional), a step blocked by a denied required approval (Retry) and a step
// blocked by that denial.

export const DEMO_RUN_ID = 'run-demo-7f3a';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

export function demoPlan(): { events: RunEvent[]; approvals: ApprovalRequestMessage[] } {
  const st = new EventStamper(0, Date.now() - 83_000);
  const events: RunEvent[] = [];
  const push = (e: NewRunEvent, ms = 400): void => {
    events.push(st.stamp(e, ms));
  };
  const call = (
    stepId: string,
    id: string,
    name: string,
    args: unknown,
    extra: Partial<{ requestedName: string; nameResolution: 'exact' | 'alias' | 'normalized' | 'repaired' }> = {},
  ): void => {
    const json = JSON.stringify(args);
    push(
      {
        type: 'tool_call_requested',
        stepId,
        call: {
          id,
          index: 0,
          turn: 1,
          name,
          requestedName: extra.requestedName ?? name,
          nameResolution: extra.nameResolution ?? 'exact',
          arguments: json,
          rawArguments: json,
          isComplete: true,
          finishReason: 'tool_calls',
        },
      },
      900,
    );
  };
  const done = (stepId: string, callId: string, status: 'success' | 'error' | 'rejected', result: string, durationMs = 180): void => {
    push({ type: 'tool_call_completed', stepId, callId, status, result, error: status === 'error', durationMs }, 300);
  };
  const usage = (stepId: string | undefined, p: number, c: number): void => {
    push(
      {
        type: 'llm_request',
        purpose: stepId ? 'executor' : 'planner',
        stepId,
        requestedModel: 'gpt-4.1',
        usedModel: 'gpt-4.1',
        attempts: [],
        ok: true,
        usage: { promptTokens: p, completionTokens: c },
        durationMs: 1200,
      },
      200,
    );
  };
  const status = (stepId: string, s: 'in_progress' | 'completed' | 'failed' | 'blocked', reason?: string, blockedBy?: string): void => {
    push({ type: 'step_status_changed', stepId, status: s, reason, blockedBy }, 200);
  };
  const add = (
    stepId: string,
    description: string,
    dependsOn: string[],
    origin: 'planner' | 'replan' = 'planner',
    lineage = stepId,
    replanAttempts = 0,
  ): void => {
    push({ type: 'step_added', stepId, description, dependsOn, lineage, replanAttempts, origin }, 0);
  };
  const passed = (stepId: string, calls: number): void => {
    push({ type: 'step_verified', stepId, passed: true, reason: `all ${calls} tool calls succeeded`, failedCallIds: [] });
  };
  /**
   * A call `call_x` that asks for approval `apr_x`; a denied required one blocks its step, a denied
   * optional one lets it go on. Returns the request as the panel's approval list shows it.
   */
  const askingCall = (stepId: string, callId: string, toolName: string, args: unknown, reason: string, required = true): ApprovalRequestMessage => {
    call(stepId, callId, toolName, args);
    const argumentsJson = JSON.stringify(args);
    const argsHash = sha(argumentsJson);
    const requestId = callId.replace(/^call_/, 'apr_');
    const denyEffect = required ? 'block' : 'continue';
    push({ type: 'tool_call_awaiting_approval', stepId, callId, approval: { required, denyEffect, reason, argsHash, requestId } });
    return { requestId, stepId, callId, toolName, argumentsJson, argsHash, required, denyEffect, reason };
  };
  /** A step that starts, makes one call that succeeds, passes verification and completes. */
  const oneCallStep = (stepId: string, callId: string, name: string, args: unknown, result: string): void => {
    status(stepId, 'in_progress');
    call(stepId, callId, name, args);
    done(stepId, callId, 'success', result);
    passed(stepId, 1);
    status(stepId, 'completed');
  };

  push(
    {
      type: 'run_started',
      runId: DEMO_RUN_ID,
      task: 'Add input validation to the CLI flags, cover it with tests and document the new errors in the README.',
      workspace: '/home/dev/cortex',
      model: 'gpt-4.1',
      baseUrl: 'https://api.openai.com/v1',
    },
    0,
  );
  usage(undefined, 2140, 512);
  push({ type: 'plan_created', title: 'Validate CLI flags, test them and document the errors' });
  add('s1', 'Read src/cli/main.ts and list every command, flag and default value it accepts', []);
  add('s2', 'Add zod validation for --max-steps and --model inside main.ts', ['s1']);
  add('s3', 'Update the README usage section with the validated flags and their error messages', ['s1']);
  add('s4', 'Run the unit tests for the CLI and fix any failures', ['s2']);
  add('s8', 'Push the branch to origin so CI runs', ['s3']);
  add('s9', 'Post the release note to the team channel', ['s8']);

  status('s1', 'in_progress');
  call('s1', 'call_a1', 'read_file', { path: 'src/cli/main.ts' });
  done('s1', 'call_a1', 'success', "import { parseArgs } from 'node:util';\n// 148 lines\n");
  call('s1', 'call_a2', 'search_files', { query: 'process.argv', glob: 'src/**/*.ts' }, { requestedName: 'grep', nameResolution: 'alias' });
  done('s1', 'call_a2', 'success', 'src/cli/main.ts:12\nsrc/cli/args.ts:4');
  usage('s1', 3020, 410);
  push({ type: 'step_output', stepId: 's1', output: 'Commands: run, replay. Flags: --max-steps (default 20), --model (default gpt-4.1), --trace <file>.' });
  passed('s1', 2);
  status('s1', 'completed');

  status('s2', 'in_progress');
  status('s3', 'in_progress');
  call('s2', 'call_b1', 'edit_file', {
    path: 'src/cli/main.ts',
    find: 'const maxSteps = Number(args.maxSteps)',
    replace: 'const maxSteps = FlagsSchema.shape.maxSteps.parse(args.maxSteps)',
  });
  done('s2', 'call_b1', 'error', 'edit_file: the text to find occurs 0 times in src/cli/main.ts', 35);
  call('s2', 'call_b2', 'edit_file', { path: 'src/cli/main.ts', find: 'maxSteps', replace: 'flags.maxSteps' });
  usage('s2', 4100, 620);
  push({ type: 'step_verified', stepId: 's2', passed: false, reason: '1 tool call still pending (call_b2), 1 failed', failedCallIds: ['call_b1', 'call_b2'] });
  status('s2', 'failed', 'max_steps_exceeded');
  push({
    type: 'subgraph_replaced',
    replan: {
      failedStepId: 's2',
      replacedStepIds: ['s2', 's4'],
      newStepIds: ['s5', 's6', 's7'],
      attempt: 1,
      maxAttempts: 2,
      reason: 'The edit did not match the file; split the work: schema first, then wire it in.',
      action: 'redesign',
    },
  });
  add('s5', 'Create src/cli/flags.ts with a zod schema for every CLI flag', ['s1'], 'replan', 's2', 1);
  add('s6', 'Use the schema in main.ts and print a readable error for invalid flags', ['s5'], 'replan', 's2', 1);
  add('s7', 'Run npm test and fix the failures the new validation causes', ['s6'], 'replan', 's4', 1);
  usage(undefined, 1800, 390);

  const flagsFile = "import { z } from 'zod';\nexport const FlagsSchema = z.object({ maxSteps: z.coerce.number().int().min(1).max(200) });\n";
  oneCallStep('s5', 'call_c1', 'write_file', { path: 'src/cli/flags.ts', content: flagsFile }, 'wrote 2 lines to src/cli/flags.ts');
  const useSchema = { path: 'src/cli/main.ts', find: 'const maxSteps = Number(args.maxSteps);', replace: 'const flags = FlagsSchema.parse(args);' };
  oneCallStep('s6', 'call_d1', 'edit_file', useSchema, 'replaced 1 occurrence');

  status('s7', 'in_progress');
  call('s7', 'call_e1', 'read_file', { path: 'package.json' });
  done('s7', 'call_e1', 'success', '{ "scripts": { "test": "mocha" } }');
  const testCommand = { command: 'npm test -- --grep "cli flags"', cwd: '.', timeoutMs: 120000 };
  const runTests = askingCall('s7', 'call_e2', 'run_command', testCommand, 'run_command needs approval (policy: confirm)');
  usage('s7', 5200, 300);

  call('s3', 'call_f1', 'read_file', { path: 'README.md' });
  done('s3', 'call_f1', 'success', '# Cortex\n## Usage\n...');
  const usageSection = '## Usage\n\n`cortex run --max-steps 30 "task"`\n\nInvalid flags exit with code 2 and say which flag and why.\n';
  const writeReadme = askingCall('s3', 'call_f2', 'write_file', { path: 'README.md', content: usageSection }, 'write_file outside src/ asks first', false);

  status('s8', 'in_progress');
  askingCall('s8', 'call_g1', 'run_command', { command: 'git push origin feature/cli-validation' }, 'git push needs approval');
  done('s8', 'call_g1', 'rejected', 'Denied by the user: not yet, CI is down today.', 0);
  status('s8', 'blocked', 'approval_denied');
  status('s9', 'blocked', undefined, 's8');

  // The two still waiting for an answer; the push was denied.
  return { events, approvals: [runTests, writeReadme] };
}
