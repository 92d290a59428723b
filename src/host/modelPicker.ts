import * as vscode from 'vscode';
import { modelChoices } from './homeItems';

/**
 * "Cortex: Choose model…" (also the Model item of the Cortex view): the configured model and the
 * fallback models, or any other name typed in. Writes `cortex.llm.model` where it is set now (the
 * workspace's value wins over the user's, so changing the user's would change nothing).
 */
export async function pickModel(): Promise<void> {
  const llm = vscode.workspace.getConfiguration('cortex.llm');
  const model = llm.get<string>('model') ?? '';
  const baseUrl = llm.get<string>('baseUrl') ?? '';
  const fallbacks = llm.get<unknown>('fallbackModels');
  const fallbackModels = Array.isArray(fallbacks) ? fallbacks.filter((name): name is string => typeof name === 'string' && name !== '') : [];
  type Item = vscode.QuickPickItem & { model?: string };
  const items: Item[] = modelChoices({ model, fallbackModels }).map((choice) => ({
    label: choice.model,
    description: choice.inUse ? 'in use' : 'fallback model',
    model: choice.model,
  }));
  items.push({ label: '$(edit) Other model…', description: 'type a model name', alwaysShow: true });
  const picked = await vscode.window.showQuickPick(items, { title: 'Cortex: Choose model', placeHolder: `In use: ${model} at ${baseUrl}` });
  if (!picked) return;
  const name =
    picked.model ??
    (
      await vscode.window.showInputBox({
        title: 'Cortex: Choose model',
        prompt: `Model name at ${baseUrl}`,
        value: model,
        ignoreFocusOut: true,
        validateInput: (value) => (value.trim() === '' ? 'Enter a model name, or press Escape to cancel.' : undefined),
      })
    )?.trim();
  if (!name || name === model) return;
  const inspected = llm.inspect<string>('model');
  const target = inspected?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await llm.update('model', name, target);
  void vscode.window.showInformationMessage(
    `Cortex now uses ${name} (cortex.llm.model in your ${target === vscode.ConfigurationTarget.Global ? 'user' : 'workspace'} settings).`,
  );
}
