import * as vscode from 'vscode';
import { parseCheckRunInput, type CheckRunInput } from './checkRunInput';

// `cortex_checkRun` (docs/design.md, “Cortex as a tool of other agents”): another agent asks how a
// Cortex run of this workspace ended, without running anything: the same compact report as
// `cortex_runVerifiedPlan` returns (each step's verdict and evidence, the checks that failed, i.e.
// claims the record does not back, the changed files and the failures), read from the run's trace.
// Read-only, so VS Code need not ask first. Registered at activation (cheap: no zod, no core).

export const CHECK_RUN_TOOL = 'cortex_checkRun';

export function registerCheckRunTool(check: (input: CheckRunInput, token: vscode.CancellationToken) => Promise<string>): vscode.Disposable {
  return vscode.lm.registerTool<CheckRunInput>(CHECK_RUN_TOOL, {
    prepareInvocation(options) {
      const input = parseCheckRunInput(options.input);
      return { invocationMessage: input.runId ? `Cortex is checking run ${input.runId}` : 'Cortex is checking its newest run of this workspace' };
    },
    async invoke(options, token) {
      const text = await check(parseCheckRunInput(options.input), token);
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
    },
  });
}
