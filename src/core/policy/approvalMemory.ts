import type { RememberedRule } from '../plan/rememberedApproval';
import { silentLogger, type Logger } from '../ports';
import { parseStoredPrefixes, ruleMatches, sameRule, type RememberableCall } from './rememberedRules';

// The remembered answers one run applies (docs/design.md, “Remembered approvals”): the answers
// given "for this run" (kept in memory, gone with the run) and the workspace's "always allow"
// command prefixes (read from the host's store on every match, as untrusted data). Only a trusted
// workspace gets an ApprovalMemory at all.

/** Where the host keeps the workspace's command prefixes (VS Code: workspace state, never settings). */
export interface RememberedPrefixStore {
  /** The stored value as it is: validated here, never trusted. */
  read(): unknown;
  write(value: Array<Extract<RememberedRule, { prefix: string[] }>>): Promise<void>;
}

export type RememberedScope = 'run' | 'workspace';

export class ApprovalMemory {
  private readonly runRules: RememberedRule[] = [];
  /** Malformed entries already logged: the store is read on every match, the log says it once. */
  private readonly dropped = new Set<string>();
  private readonly logger: Logger;

  constructor(private readonly options: { store?: RememberedPrefixStore; logger?: Logger } = {}) {
    this.logger = options.logger ?? silentLogger;
  }

  /** True when "Always allow in this workspace" can be kept (the host gave a store). */
  get persists(): boolean {
    return this.options.store !== undefined;
  }

  /** The remembered answer that approves `call`, if any: this run's first, then the workspace's. */
  find(call: RememberableCall): { rule: RememberedRule; scope: RememberedScope } | undefined {
    const run = this.runRules.find((rule) => ruleMatches(rule, call));
    if (run) return { rule: run, scope: 'run' };
    const stored = this.workspaceRules().find((rule) => ruleMatches(rule, call));
    return stored ? { rule: stored, scope: 'workspace' } : undefined;
  }

  rememberForRun(rule: RememberedRule): void {
    if (!this.runRules.some((other) => sameRule(other, rule))) this.runRules.push(rule);
  }

  /** Adds a command prefix to the workspace's store (and to this run); only command prefixes are kept. */
  async rememberInWorkspace(rule: RememberedRule): Promise<void> {
    if (!('prefix' in rule)) throw new Error('only a command prefix can be allowed for the workspace');
    this.rememberForRun(rule);
    const store = this.options.store;
    if (!store) throw new Error('this host keeps nothing for the workspace');
    const rules = this.workspaceRules();
    if (rules.some((other) => sameRule(other, rule))) return;
    await store.write([...rules, rule]);
  }

  /** The workspace's valid prefixes; malformed entries are dropped with a log line. */
  workspaceRules(): Array<Extract<RememberedRule, { prefix: string[] }>> {
    const store = this.options.store;
    if (!store) return [];
    let value: unknown;
    try {
      value = store.read();
    } catch (error) {
      this.logger.warn('remembered approvals: could not read the workspace store', { error: error instanceof Error ? error.message : String(error) });
      return [];
    }
    return parseStoredPrefixes(value, (why) => {
      if (this.dropped.has(why)) return;
      this.dropped.add(why);
      this.logger.warn(`remembered approvals: dropped ${why}`);
    });
  }
}
