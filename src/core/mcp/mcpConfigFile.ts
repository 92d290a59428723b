import { stripJsonComments } from './jsonc';
import type { McpInput, McpServerEntry } from '../config/mcpTypes';
import { parseServerEntry } from '../config/mcpServerEntry';
import { isRecord } from '../text/isRecord';

// An MCP configuration file in either shape: VS Code's `.vscode/mcp.json` (`{"servers": {…},
// "inputs": […]}`, JSONC) or the `{"mcpServers": {…}}` shape other agents use. Problems are
// collected per server, so a caller can refuse the whole file (the CLI) or skip one server with
// a warning (the editor).

export interface McpConfigFile {
  servers: Array<{ name: string; entry: McpServerEntry }>;
  inputs: McpInput[];
  /** One line per problem, each naming the server or input it is about. */
  problems: string[];
}

/** The file is not an MCP configuration at all (not JSON, not an object, no server map). */
export class McpConfigFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpConfigFileError';
  }
}

function parseInputs(raw: unknown, problems: string[]): McpInput[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    problems.push('"inputs" must be a list');
    return [];
  }
  const inputs: McpInput[] = [];
  const seen = new Set<string>();
  for (const [index, item] of raw.entries()) {
    if (!isRecord(item) || typeof item.id !== 'string' || item.id === '') {
      problems.push(`inputs[${index}] needs an "id"`);
      continue;
    }
    const where = `input "${item.id}"`;
    if (seen.has(item.id)) problems.push(`${where} is defined twice`);
    seen.add(item.id);
    const description = typeof item.description === 'string' ? item.description : undefined;
    const fallback = typeof item.default === 'string' ? item.default : undefined;
    if (item.type === 'promptString') {
      inputs.push({ type: 'promptString', id: item.id, description, password: item.password === true, default: fallback });
    } else if (item.type === 'pickString') {
      const options = Array.isArray(item.options)
        ? (item.options as unknown[])
            .map((o): unknown => (isRecord(o) && typeof o.value === 'string' ? o.value : o))
            .filter((o): o is string => typeof o === 'string')
        : [];
      if (options.length === 0) problems.push(`${where}: a pickString input needs "options"`);
      else inputs.push({ type: 'pickString', id: item.id, description, options, default: fallback });
    } else {
      problems.push(`${where}: type ${JSON.stringify(item.type)} is not supported (use "promptString" or "pickString")`);
    }
  }
  return inputs;
}

/** Parses the text of an MCP configuration file named `file` (for messages). */
export function parseMcpConfigFile(text: string, file: string): McpConfigFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripJsonComments(text));
  } catch (error) {
    throw new McpConfigFileError(`${file} is not valid JSON: ${(error as Error).message.replace(/\.$/, '')}`);
  }
  if (!isRecord(parsed)) throw new McpConfigFileError(`${file} must hold a JSON object with "servers" or "mcpServers"`);
  const maps = (['servers', 'mcpServers'] as const).filter((key) => parsed[key] !== undefined);
  if (maps.length === 0) throw new McpConfigFileError(`${file} has neither "servers" (VS Code's mcp.json) nor "mcpServers"`);
  const problems: string[] = [];
  const servers: McpConfigFile['servers'] = [];
  const names = new Set<string>();
  for (const key of maps) {
    const map = parsed[key];
    if (!isRecord(map)) throw new McpConfigFileError(`${file}: "${key}" must be an object of server names to definitions`);
    for (const [name, raw] of Object.entries(map)) {
      if (names.has(name)) {
        problems.push(`server "${name}" is defined in both "servers" and "mcpServers"`);
        continue;
      }
      names.add(name);
      const result = parseServerEntry(name, raw, false);
      if (!result.ok) problems.push(...result.problems.map((problem) => `server "${name}": ${problem}`));
      else if (!result.disabled) servers.push({ name, entry: result.entry });
    }
  }
  return { servers, inputs: parseInputs(parsed.inputs, problems), problems };
}
