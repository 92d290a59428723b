import type * as vscode from 'vscode';

// cortex.llm.vscodeModel as a selector for vscode.lm.selectChatModels (docs/design.md, “Models from
// VS Code”), apart from the client so it is tested in plain Node.

/** `vendor/family`, `vendor/family/id`, or a bare id: which model cortex.llm.vscodeModel names. */
export function modelSelector(setting: string): vscode.LanguageModelChatSelector {
  const parts = setting.split('/').map((part) => part.trim());
  if (parts.length === 1) return parts[0] ? { id: parts[0] } : {};
  const [vendor, family, id] = parts;
  return { ...(vendor ? { vendor } : {}), ...(family ? { family } : {}), ...(id ? { id } : {}) };
}
