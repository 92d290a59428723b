import type { McpInput, McpServerDefinition, McpServerEntry, McpServerSource } from '../config/mcpTypes';
import { McpVariableError, resolveVariables, type VariableContext } from './variables';

// Servers from several places (the user's `cortex.mcp.servers`, a CLI `--mcp-config` file, a
// workspace's `.vscode/mcp.json`) become one list of definitions for a run: one name means one
// server (a name defined twice is refused), and every `${…}` variable is substituted. Asking for
// an `${input:…}` value is the host's business (a prompt in the editor, the terminal in the CLI).

export interface ServerGroup {
  source: McpServerSource;
  servers: Array<{ name: string; entry: McpServerEntry }>;
  /** The group's `inputs` (VS Code's mcp.json), which describe how to ask for each `${input:id}`. */
  inputs: McpInput[];
}

export type InputAsker = (input: McpInput, source: McpServerSource) => Promise<string | undefined>;

/** Where a source's servers are defined, for messages. */
export function describeSource(source: McpServerSource): string {
  if (source.kind === 'user') return 'the cortex.mcp.servers setting';
  return source.file;
}

/** Names defined in more than one group, each as a sentence. */
export function duplicateServerNames(groups: readonly ServerGroup[]): string[] {
  const seen = new Map<string, McpServerSource>();
  const problems: string[] = [];
  for (const group of groups) {
    for (const { name } of group.servers) {
      const first = seen.get(name);
      if (first) problems.push(`MCP server "${name}" is defined in both ${describeSource(first)} and ${describeSource(group.source)}; rename one`);
      else seen.set(name, group.source);
    }
  }
  return problems;
}

/**
 * The definitions of one group with variables substituted. An input is asked at most once per
 * group (several servers may use the same token); one the group does not define is asked as a
 * plain text prompt named by its id. A server whose variables cannot be substituted (an unknown
 * variable, an input not given) is left out with a problem naming it; the others go on.
 */
export async function resolveGroup(
  group: ServerGroup,
  context: Omit<VariableContext, 'input'>,
  ask: InputAsker,
): Promise<{ definitions: McpServerDefinition[]; problems: string[] }> {
  const answers = new Map<string, Promise<string | undefined>>();
  const input = (id: string) => {
    let answer = answers.get(id);
    if (!answer) {
      const defined = group.inputs.find((candidate) => candidate.id === id) ?? { type: 'promptString' as const, id, description: `Value of \${input:${id}}` };
      answer = ask(defined, group.source);
      answers.set(id, answer);
    }
    return answer;
  };
  const definitions: McpServerDefinition[] = [];
  const problems: string[] = [];
  for (const { name, entry } of group.servers) {
    try {
      definitions.push({ name, entry: await resolveVariables(name, entry, { ...context, input }), source: group.source });
    } catch (error) {
      if (!(error instanceof McpVariableError)) throw error;
      problems.push(error.message);
    }
  }
  return { definitions, problems };
}
