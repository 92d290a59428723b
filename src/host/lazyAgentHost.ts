import type { Logger } from '../core/ports';
import type { AgentHost, AgentHostDeps } from './agentHost';

/**
 * Loads the agent host module. `./agentHost` is external to the activation bundle
 * (scripts/build.mjs), so in dist/ this is a plain require of dist/agentHost.js, compiled only here.
 */
export function loadAgentHostModule(): { createAgentHost(deps: AgentHostDeps): AgentHost } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy require is the point: an import would be bundled and compiled at activation
  return require('./agentHost') as { createAgentHost(deps: AgentHostDeps): AgentHost };
}

/** The agent host, created on first use and disposed with the extension. */
export class LazyAgentHost {
  private host: AgentHost | undefined;
  private disposed = false;
  private stopped?: Promise<void>;

  constructor(
    private readonly create: () => AgentHost,
    private readonly logger: Logger,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The agent host, loading it now if this is its first use. Throws if it cannot be loaded. */
  get(): AgentHost {
    if (this.disposed) throw new Error('Cortex is shutting down');
    if (this.host) return this.host;
    const started = this.now();
    try {
      this.host = this.create();
    } catch (error) {
      this.logger.error(`Loading the agent core failed: ${(error as Error).stack ?? String(error)}`);
      throw new Error(`Cortex could not load its agent core: ${(error as Error).message}`, { cause: error });
    }
    this.logger.info(`Agent core loaded in ${(this.now() - started).toFixed(0)} ms.`);
    return this.host;
  }

  /** True once the agent core was loaded. */
  get loaded(): boolean {
    return this.host !== undefined;
  }

  /** Resolves once the running runs' traces are written and their locks released. Safe to call twice. */
  dispose(): Promise<void> {
    this.disposed = true;
    this.stopped ??= this.host?.dispose() ?? Promise.resolve();
    this.host = undefined;
    return this.stopped;
  }
}
