import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import type { FlatConfig } from '../core/config/configSchema';
import { McpConfigFileError, parseMcpConfigFile } from '../core/mcp/mcpConfigFile';
import type { McpInput, McpServerDefinition } from '../core/config/mcpTypes';
import { duplicateServerNames, resolveGroup, type ServerGroup } from '../core/mcp/serverSources';
import { terminalSafe } from '../core/text/terminalSafe';
import { UsageError } from './cliArgs';
import { describeFsError } from './fsErrorText';

// The CLI's MCP servers (docs/design.md, “MCP tools”): `cortex.mcp.servers` from --config and the servers of
// an `--mcp-config FILE` (VS Code's mcp.json or the mcpServers shape). The CLI never reads a
// workspace's `.vscode/mcp.json` by itself: a repository cannot start programs through the CLI.
// `${input:id}` values are asked on the terminal (hidden for passwords); without a terminal that
// is a usage error naming the input.

export interface CliMcpIo {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** The MCP loader's terminal: stdin is read only when an input has to be asked for (creating it costs the start 2 ms). */
export function cliMcpIo(io: { stdin: CliMcpIo['input']; stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv }): CliMcpIo {
  return {
    get input() {
      return io.stdin;
    },
    output: io.stderr,
    env: io.env,
  };
}

function readGroupSync(file: string): ServerGroup {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(describeFsError(error, 'MCP config file', file), false);
  }
  let parsed;
  try {
    parsed = parseMcpConfigFile(text, file);
  } catch (error) {
    // Its messages start with the file's name: "MCP config file <file> is not valid JSON: …".
    if (error instanceof McpConfigFileError) throw new UsageError(`MCP config file ${error.message}`, false);
    throw error;
  }
  if (parsed.problems.length > 0) throw new UsageError(`MCP config file ${file}: ${parsed.problems.join('; ')}`, false);
  return { source: { kind: 'cli', file }, servers: parsed.servers, inputs: parsed.inputs };
}

/** Asks for one input on the terminal; a password is not echoed. */
async function askOnTerminal(input: McpInput, io: CliMcpIo): Promise<string | undefined> {
  if (!io.input.isTTY)
    throw new UsageError(
      `an MCP server needs \${input:${input.id}} (${input.description ?? 'no description'}), but there is no terminal to ask; put the value in \${env:NAME} instead`,
      false,
    );
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!muted) io.output.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: io.input, output, terminal: true });
  try {
    const choices = input.type === 'pickString' ? ` [${input.options.join(' | ')}]` : '';
    const question = rl.question(
      `[cortex] ${terminalSafe(input.description ?? input.id)}${choices}${input.default ? ` (default ${terminalSafe(input.default)})` : ''}: `,
    );
    muted = input.type === 'promptString' && input.password === true;
    const answer = (await question).trim() || input.default || '';
    if (muted) io.output.write('\n');
    if (input.type === 'pickString' && !input.options.includes(answer))
      throw new UsageError(`\${input:${input.id}} must be one of ${input.options.join(', ')}`, false);
    return answer;
  } finally {
    rl.close();
  }
}

/** The MCP servers of a CLI run, variables substituted; every mistake is a UsageError. */
export async function loadCliMcpServers(
  mcpConfig: string | undefined,
  config: FlatConfig,
  workspace: string,
  cwd: string,
  io: CliMcpIo,
): Promise<McpServerDefinition[]> {
  const groups: ServerGroup[] = [];
  const fromSettings = Object.entries(config['cortex.mcp.servers']).map(([name, entry]) => ({ name, entry }));
  if (fromSettings.length > 0) groups.push({ source: { kind: 'user' }, servers: fromSettings, inputs: [] });
  if (mcpConfig !== undefined) groups.push(readGroupSync(resolve(cwd, mcpConfig)));
  const duplicates = duplicateServerNames(groups);
  if (duplicates.length > 0) throw new UsageError(duplicates.join('; '), false);
  const definitions: McpServerDefinition[] = [];
  for (const group of groups) {
    const resolved = await resolveGroup(group, { workspaceFolder: workspace, userHome: homedir(), env: io.env }, (input) => askOnTerminal(input, io));
    if (resolved.problems.length > 0) throw new UsageError(resolved.problems.join('; '), false);
    definitions.push(...resolved.definitions);
  }
  return definitions;
}
