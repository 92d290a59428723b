import * as vscode from 'vscode';
import { parseRunPlanInput, quoted, runPlanConfirmation, type RunPlanInput } from './runPlanInput';

// Cortex as a tool of other agents (docs/design.md, “Cortex as a tool of other agents”): Copilot's
// agent mode, or any extension through vscode.lm.invokeTool, hands Cortex a task; Cortex runs it in
// its own panel with all its approvals and policy, and answers with a compact report. Registered at
// activation (cheap: no zod, no core); the run itself loads the agent core.

export const RUN_PLAN_TOOL = 'cortex_runVerifiedPlan';

export function registerRunPlanTool(run: (input: RunPlanInput, token: vscode.CancellationToken) => Promise<string>): vscode.Disposable {
  return vscode.lm.registerTool<RunPlanInput>(RUN_PLAN_TOOL, {
    prepareInvocation(options) {
      const input = parseRunPlanInput(options.input);
      const folder = vscode.workspace.workspaceFolders?.[0]?.name;
      const confirmation = runPlanConfirmation(input, folder, vscode.workspace.isTrusted);
      return {
        invocationMessage: `Cortex is running ${quoted(input.task, 80)}`,
        confirmationMessages: { title: confirmation.title, message: new vscode.MarkdownString().appendText(confirmation.message) },
      };
    },
    async invoke(options, token) {
      const text = await run(parseRunPlanInput(options.input), token);
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
    },
  });
}
