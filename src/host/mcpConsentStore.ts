import { serverDefinitionHash } from '../core/mcp/definitionHash';
import type { McpServerEntry } from '../core/config/mcpTypes';

// Which servers of a workspace's MCP file the person allowed (docs/design.md, “MCP tools”). Kept in the
// workspace's state (never in the repository), per file and server name, with the hash of the
// exact definition the person saw: a changed command line, argument, variable or URL asks again.
// No `vscode` import, so it is unit-tested in plain Node.

/** The part of VS Code's Memento this store uses. */
export interface StateLike {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

export type ConsentStatus = 'allowed' | 'denied' | 'ask' | 'changed';

interface Decision {
  hash: string;
  decision: 'allow' | 'deny';
}

const KEY = 'cortex.mcp.consent';

export class McpConsentStore {
  constructor(private readonly state: StateLike) {}

  private all(): Record<string, Decision> {
    return this.state.get<Record<string, Decision>>(KEY) ?? {};
  }

  private static key(file: string, name: string): string {
    return `${file}\u0000${name}`;
  }

  /** 'ask' when never answered, 'changed' when answered for a different definition. */
  status(file: string, name: string, entry: McpServerEntry): ConsentStatus {
    const decision = this.all()[McpConsentStore.key(file, name)];
    if (!decision) return 'ask';
    if (decision.hash !== serverDefinitionHash(name, entry)) return 'changed';
    return decision.decision === 'allow' ? 'allowed' : 'denied';
  }

  async record(file: string, name: string, entry: McpServerEntry, decision: 'allow' | 'deny'): Promise<void> {
    await this.state.update(KEY, { ...this.all(), [McpConsentStore.key(file, name)]: { hash: serverDefinitionHash(name, entry), decision } });
  }
}
