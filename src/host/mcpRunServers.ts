import { homedir } from 'node:os';
import type * as vscode from 'vscode';
import type { FlatConfig } from '../core/config/configSchema';
import type { McpServerDefinition, McpServerEntry } from '../core/config/mcpTypes';
import { describeSource, duplicateServerNames, resolveGroup, type ServerGroup } from '../core/mcp/serverSources';
import type { Logger } from '../core/ports';
import { askServerConsent } from './mcpConsentPrompt';
import { McpConsentStore, type ConsentStatus } from './mcpConsentStore';
import { secretInputAsker } from './mcpInputs';
import { readWorkspaceMcpFiles } from './mcpWorkspaceFiles';

// The MCP servers of a run in VS Code (docs/design.md, “MCP tools”): the user's `cortex.mcp.servers` and
// the workspace folder's `.vscode/mcp.json` / `.mcp.json`. A workspace server starts only after
// the person allowed its exact definition, and in Restricted Mode nothing starts. Every server
// that is configured but not started is named in a notice that goes to the run's trace.

export interface ConfiguredServer {
  name: string;
  /** The definition as written (variables not substituted). */
  entry: McpServerEntry;
  group: ServerGroup;
}

export interface RunServers {
  servers: McpServerDefinition[];
  notices: string[];
}

export class McpHostServers {
  readonly consent: McpConsentStore;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly logger: Logger,
  ) {
    this.consent = new McpConsentStore(context.workspaceState);
  }

  /** Every configured server of `folder`, and what could not be read. A name defined twice keeps its first definition. */
  async configured(folder: string, config: FlatConfig): Promise<{ servers: ConfiguredServer[]; problems: string[] }> {
    const user: ServerGroup = {
      source: { kind: 'user' },
      servers: Object.entries(config['cortex.mcp.servers']).map(([name, entry]) => ({ name, entry })),
      inputs: [],
    };
    const workspace = await readWorkspaceMcpFiles(folder);
    const groups = [user, ...workspace.groups];
    const problems = [...workspace.problems, ...duplicateServerNames(groups)];
    const seen = new Set<string>();
    const servers: ConfiguredServer[] = [];
    for (const group of groups) {
      for (const server of group.servers) {
        if (seen.has(server.name)) continue;
        seen.add(server.name);
        servers.push({ ...server, group });
      }
    }
    return { servers, problems };
  }

  /** 'allowed' for the user's own servers; the remembered answer for a workspace server. */
  consentOf(server: ConfiguredServer): ConsentStatus {
    const source = server.group.source;
    return source.kind === 'workspace' ? this.consent.status(source.file, server.name, server.entry) : 'allowed';
  }

  /** Asks about a workspace server now and remembers the answer (Allow / Don't allow). */
  async ask(server: ConfiguredServer): Promise<ConsentStatus> {
    const source = server.group.source;
    if (source.kind !== 'workspace') return 'allowed';
    const answer = await askServerConsent(server.name, source.file, server.entry, this.consentOf(server));
    if (answer !== 'skip') await this.consent.record(source.file, server.name, server.entry, answer);
    this.logger.info(
      `MCP server "${server.name}" from ${source.file}: ${answer === 'allow' ? 'allowed' : answer === 'deny' ? 'not allowed' : 'skipped for now'}`,
    );
    return answer === 'allow' ? 'allowed' : answer === 'deny' ? 'denied' : 'ask';
  }

  /** Substitutes variables (asking for inputs) of the given servers. */
  async resolve(folder: string, servers: readonly ConfiguredServer[]): Promise<{ definitions: McpServerDefinition[]; problems: string[] }> {
    const ask = secretInputAsker(this.context.secrets, folder);
    const definitions: McpServerDefinition[] = [];
    const problems: string[] = [];
    for (const group of new Set(servers.map((s) => s.group))) {
      const subset: ServerGroup = { ...group, servers: servers.filter((s) => s.group === group).map(({ name, entry }) => ({ name, entry })) };
      const resolved = await resolveGroup(subset, { workspaceFolder: folder, userHome: homedir(), env: process.env }, ask);
      definitions.push(...resolved.definitions);
      problems.push(...resolved.problems);
    }
    return { definitions, problems };
  }

  /** The servers a run in `folder` starts (asking for consent and inputs as needed) and notices about the others. */
  async forRun(folder: string, config: FlatConfig, trusted: boolean): Promise<RunServers> {
    const { servers, problems } = await this.configured(folder, config);
    const notices = problems.map((problem) => `MCP configuration not used: ${problem}`);
    if (servers.length === 0) return { servers: [], notices };
    if (!trusted) return { servers: [], notices: [...notices, `MCP servers are not started in Restricted Mode: ${servers.map((s) => s.name).join(', ')}`] };
    const allowed: ConfiguredServer[] = [];
    for (const server of servers) {
      let status = this.consentOf(server);
      if (status === 'ask' || status === 'changed') status = await this.ask(server);
      if (status === 'allowed') allowed.push(server);
      else
        notices.push(
          `MCP server "${server.name}" from ${describeSource(server.group.source)} was not started: ${status === 'denied' ? 'you did not allow it for this workspace (Cortex: MCP servers can change that)' : 'it was not allowed for this run'}`,
        );
    }
    const resolved = await this.resolve(folder, allowed);
    notices.push(...resolved.problems.map((problem) => `${problem}; the server was not started`));
    return { servers: resolved.definitions, notices };
  }
}
