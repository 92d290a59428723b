import * as vscode from 'vscode';
import { ConfigError, parseConfig, type FlatConfig } from '../core/config/configSchema';
import type { Logger } from '../core/ports';
import { mapSettings } from './settingsMapping';

export type SettingsResult = { ok: true; config: FlatConfig } | { ok: false; error: ConfigError };

/**
 * Reads and validates `cortex.*` settings with the same `parseConfig` as the CLI. Invalid values
 * give one clear notification with an "Open Settings" button; every change is re-validated.
 */
export class SettingsReader implements vscode.Disposable {
  private readonly subscription: vscode.Disposable;
  private warnedIgnored = new Set<string>();

  constructor(private readonly logger: Logger) {
    this.subscription = vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration('cortex')) return;
      const result = this.read();
      if (result.ok) logger.info('Settings changed and are valid.');
      else void this.reportInvalid(result.error);
    });
  }

  read(): SettingsResult {
    const configuration = vscode.workspace.getConfiguration();
    const mapped = mapSettings((key) => configuration.inspect(key));
    for (const key of mapped.ignoredWorkspaceKeys) {
      if (this.warnedIgnored.has(key)) continue;
      this.warnedIgnored.add(key);
      this.logger.warn(`Ignoring workspace value of ${key}: security settings are only read from user settings.`);
      void vscode.window.showWarningMessage(`Cortex ignores the workspace value of \`${key}\`: security settings are only read from your user settings.`);
    }
    try {
      return { ok: true, config: parseConfig(mapped.input) };
    } catch (error) {
      if (error instanceof ConfigError) return { ok: false, error };
      throw error;
    }
  }

  /** The config, or undefined after telling the user what is wrong. */
  async readOrReport(): Promise<FlatConfig | undefined> {
    const result = this.read();
    if (result.ok) return result.config;
    await this.reportInvalid(result.error);
    return undefined;
  }

  private async reportInvalid(error: ConfigError): Promise<void> {
    this.logger.error(error.message);
    const choice = await vscode.window.showErrorMessage(`Cortex settings are invalid: ${error.issues.join('; ')}`, 'Open Settings');
    if (choice === 'Open Settings') await vscode.commands.executeCommand('workbench.action.openSettings', 'cortex.');
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
