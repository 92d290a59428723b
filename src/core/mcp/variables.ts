import path from 'node:path';
import type { McpServerEntry } from '../config/mcpTypes';

// `${…}` variables in server definitions, as VS Code's mcp.json has them: `${workspaceFolder}`,
// `${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}` (or `${/}`), `${env:NAME}` and
// `${input:id}` (asked once by the host, then kept in secret storage). Any other `${…}` is an error
// naming it: a server started with a literal `${typo}` in its command line helps nobody.

export interface VariableContext {
  workspaceFolder: string;
  userHome: string;
  env: NodeJS.ProcessEnv;
  /** The value of `${input:id}`, or undefined when the person gave none (cancelled). */
  input(id: string): Promise<string | undefined>;
}

export class McpVariableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpVariableError';
  }
}

const VARIABLE = /\$\{([^}]*)\}/g;

/** Every `${input:id}` id the entry uses, in order of first use. */
export function inputIdsOf(entry: McpServerEntry): string[] {
  const ids = new Set<string>();
  for (const text of textsOf(entry)) for (const match of text.matchAll(VARIABLE)) if (match[1].startsWith('input:')) ids.add(match[1].slice('input:'.length));
  return [...ids];
}

function textsOf(entry: McpServerEntry): string[] {
  if (entry.type === 'stdio') return [entry.command, ...entry.args, ...Object.values(entry.env), entry.cwd ?? '', entry.envFile ?? ''];
  return [entry.url, ...Object.values(entry.headers)];
}

async function substitute(text: string, where: string, context: VariableContext): Promise<string> {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(VARIABLE)) {
    out += text.slice(last, match.index);
    last = match.index + match[0].length;
    const name = match[1];
    if (name === 'workspaceFolder') out += context.workspaceFolder;
    else if (name === 'workspaceFolderBasename') out += path.basename(context.workspaceFolder);
    else if (name === 'userHome') out += context.userHome;
    else if (name === 'pathSeparator' || name === '/') out += path.sep;
    else if (name.startsWith('env:')) out += context.env[name.slice(4)] ?? '';
    else if (name.startsWith('input:')) {
      const value = await context.input(name.slice('input:'.length));
      if (value === undefined) throw new McpVariableError(`${where}: no value was given for \${${name}}`);
      out += value;
    } else
      throw new McpVariableError(
        `${where}: unknown variable \${${name}} (known: workspaceFolder, workspaceFolderBasename, userHome, pathSeparator, env:NAME, input:ID)`,
      );
  }
  return out + text.slice(last);
}

async function substituteMap(map: Record<string, string>, where: string, context: VariableContext): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map)) out[key] = await substitute(value, `${where}.${key}`, context);
  return out;
}

/**
 * The entry with every variable replaced. A relative `cwd` or `envFile` is taken from the
 * workspace folder, and a stdio server without `cwd` runs in the workspace folder.
 */
export async function resolveVariables(serverName: string, entry: McpServerEntry, context: VariableContext): Promise<McpServerEntry> {
  const where = `MCP server "${serverName}"`;
  if (entry.type !== 'stdio') {
    const url = await substitute(entry.url, `${where} url`, context);
    if (!/^https?:\/\//i.test(url))
      throw new McpVariableError(`${where}: the url must start with http:// or https://, not ${JSON.stringify(url.slice(0, 80))}`);
    return { type: entry.type, url, headers: await substituteMap(entry.headers, `${where} headers`, context) };
  }
  const command = await substitute(entry.command, `${where} command`, context);
  const args: string[] = [];
  for (const [index, arg] of entry.args.entries()) args.push(await substitute(arg, `${where} args[${index}]`, context));
  const cwd = path.resolve(context.workspaceFolder, entry.cwd === undefined ? '.' : await substitute(entry.cwd, `${where} cwd`, context));
  const envFile = entry.envFile === undefined ? undefined : path.resolve(context.workspaceFolder, await substitute(entry.envFile, `${where} envFile`, context));
  return { type: 'stdio', command, args, env: await substituteMap(entry.env, `${where} env`, context), cwd, ...(envFile !== undefined ? { envFile } : {}) };
}
