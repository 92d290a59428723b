import * as vscode from 'vscode';
import { modelChoices } from './homeItems';

/**
 * "Cortex: Choose model…" (also the Model item of the Cortex view): the configured model and the
 * fallback models, or any other name typed in. Writes `cortex.llm.model` where it is set now (the
 * workspace's value wins over the user's, so changing the user's would change nothing).
 */
export async function pickModel(): Promise<void> {
  const llm = vscode.workspace.getConfiguration('cortex.llm');
  if (llm.get<string>('provider') === 'vscode-lm') return pickVscodeModel();
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

/** The setting value that names exactly this model. */
export function vscodeModelSetting(model: Pick<vscode.LanguageModelChat, 'vendor' | 'family' | 'id'>): string {
  return `${model.vendor}/${model.family}/${model.id}`;
}

/**
 * With cortex.llm.provider = vscode-lm (docs/design.md, “Models from VS Code”): the models VS Code
 * offers now, from every extension that provides them; the pick is written to cortex.llm.vscodeModel.
 */
export async function pickVscodeModel(): Promise<void> {
  const llm = vscode.workspace.getConfiguration('cortex.llm');
  const current = llm.get<string>('vscodeModel') ?? '';
  const models = await vscode.lm.selectChatModels();
  if (models.length === 0) {
    const choice = await vscode.window.showWarningMessage(
      'No language model is available in VS Code: install and sign in to an extension that provides models (GitHub Copilot, for example), or use an OpenAI-compatible endpoint.',
      'Show extensions',
      'Use an endpoint',
    );
    if (choice === 'Show extensions') await vscode.commands.executeCommand('workbench.extensions.search', '@category:"AI"');
    if (choice === 'Use an endpoint') await vscode.commands.executeCommand('workbench.action.openSettings', 'cortex.llm.baseUrl');
    return;
  }
  type Item = vscode.QuickPickItem & { setting: string };
  const items: Item[] = models.map((model) => {
    const setting = vscodeModelSetting(model);
    return {
      label: model.name,
      description: `${setting}${setting === current ? ' · in use' : ''}`,
      detail: `${model.vendor} · up to ${model.maxInputTokens.toLocaleString('en-US')} input tokens`,
      setting,
    };
  });
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Cortex: Choose a VS Code language model',
    placeHolder: current ? `In use: ${current}` : 'In use: the first model VS Code offers',
    matchOnDescription: true,
  });
  if (!picked || picked.setting === current) return;
  const inspected = llm.inspect<string>('vscodeModel');
  const target = inspected?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await llm.update('vscodeModel', picked.setting, target);
  void vscode.window.showInformationMessage(`Cortex now uses ${picked.label} (cortex.llm.vscodeModel = ${picked.setting}).`);
}

/**
 * The walkthrough's key-less path: Cortex uses a model another extension provides (Copilot's, for
 * example) instead of an endpoint and a key; the person then picks which.
 */
export async function useVscodeModels(): Promise<void> {
  const models = await vscode.lm.selectChatModels();
  if (models.length === 0) return pickVscodeModel();
  await vscode.workspace.getConfiguration('cortex.llm').update('provider', 'vscode-lm', vscode.ConfigurationTarget.Global);
  await pickVscodeModel();
}
