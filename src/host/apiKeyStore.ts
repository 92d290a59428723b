import type * as vscode from 'vscode';

export type ApiKeySource = 'secret' | 'env' | 'none';

/**
 * The API key lives in SecretStorage (`cortex.apiKey`), never in settings. OPENAI_API_KEY in the
 * extension host's environment is the fallback; local endpoints need neither.
 */
export class ApiKeyStore {
  static readonly SECRET_KEY = 'cortex.apiKey';

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  async get(): Promise<{ key?: string; source: ApiKeySource }> {
    const stored = (await this.secrets.get(ApiKeyStore.SECRET_KEY))?.trim();
    if (stored) return { key: stored, source: 'secret' };
    const fromEnv = this.env.OPENAI_API_KEY?.trim();
    if (fromEnv) return { key: fromEnv, source: 'env' };
    return { source: 'none' };
  }

  async set(key: string): Promise<void> {
    await this.secrets.store(ApiKeyStore.SECRET_KEY, key.trim());
  }

  async clear(): Promise<void> {
    await this.secrets.delete(ApiKeyStore.SECRET_KEY);
  }
}
