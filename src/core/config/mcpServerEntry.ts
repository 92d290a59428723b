import { z } from 'zod';
import type { McpServerEntry } from './mcpTypes';
import { isRecord } from '../text/isRecord';

// Reads one server definition in any of the shapes in use: VS Code's `.vscode/mcp.json`
// (`{"type": "stdio", "command", "args", "env", "envFile", "cwd"}` or `{"type": "http" | "sse",
// "url", "headers"}`) and the `mcpServers` shape other agents use (no `type`: a `command` means
// stdio, a `url` means HTTP). The same reader checks `cortex.mcp.servers`, where an unknown key is
// an error (a typo there should not silently do nothing); in files written for other clients
// unknown keys (their own options) are ignored, and never honoured.

export type EntryResult = { ok: true; entry: McpServerEntry; disabled: boolean } | { ok: false; problems: string[] };

const STDIO_KEYS = new Set(['type', 'command', 'args', 'env', 'envFile', 'cwd', 'disabled']);
const HTTP_KEYS = new Set(['type', 'url', 'headers', 'disabled']);
const HTTP_TYPES: Record<string, 'http' | 'sse'> = { http: 'http', 'streamable-http': 'http', streamableHttp: 'http', sse: 'sse' };

/** String values of a map; numbers and booleans are written as text, as a shell would see them. */
function stringMap(value: unknown, field: string, problems: string[]): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) {
    problems.push(`"${field}" must be an object of names to text values`);
    return {};
  }
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string') out[key] = item;
    else if (typeof item === 'number' || typeof item === 'boolean') out[key] = String(item);
    else problems.push(`"${field}.${key}" must be text, not ${item === null ? 'null' : Array.isArray(item) ? 'a list' : typeof item}`);
  }
  return out;
}

/** Problems with a server name, or undefined when it is usable. */
export function serverNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'a server name must not be empty';
  if (name.length > 100) return `the server name "${name.slice(0, 40)}…" is longer than 100 characters`;
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(name)) return `the server name ${JSON.stringify(name)} contains control characters`;
  return undefined;
}

/** Parses one server's definition; `strict` refuses keys that mean nothing to Cortex. */
export function parseServerEntry(name: string, raw: unknown, strict: boolean): EntryResult {
  const problems: string[] = [];
  const nameProblem = serverNameProblem(name);
  if (nameProblem) return { ok: false, problems: [nameProblem] };
  if (!isRecord(raw)) return { ok: false, problems: ['the definition must be an object with "command" (a local server) or "url" (a remote one)'] };
  const type = raw.type;
  if (type !== undefined && typeof type !== 'string') return { ok: false, problems: ['"type" must be "stdio", "http" or "sse"'] };
  const disabled = raw.disabled === true;
  if (raw.disabled !== undefined && typeof raw.disabled !== 'boolean') problems.push('"disabled" must be true or false');

  const isStdio = type === 'stdio' || (type === undefined && raw.command !== undefined);
  const httpType = type === undefined ? (raw.url !== undefined ? 'http' : undefined) : HTTP_TYPES[type];
  if (!isStdio && httpType === undefined) {
    if (type !== undefined) return { ok: false, problems: [`unknown "type" ${JSON.stringify(type)} (use "stdio", "http" or "sse")`] };
    return { ok: false, problems: ['the definition needs "command" (a local server) or "url" (a remote one)'] };
  }
  const known = isStdio ? STDIO_KEYS : HTTP_KEYS;
  const unknown = Object.keys(raw).filter((key) => !known.has(key));
  if (strict && unknown.length > 0)
    problems.push(
      `unknown key(s) ${unknown.map((k) => `"${k}"`).join(', ')} for ${isStdio ? 'a stdio' : 'an HTTP'} server (allowed: ${[...known].join(', ')})`,
    );

  if (isStdio) {
    if (typeof raw.command !== 'string' || raw.command.trim() === '') problems.push('"command" must name the program to run');
    let args: string[] = [];
    if (raw.args !== undefined) {
      if (!Array.isArray(raw.args)) problems.push('"args" must be a list of text arguments');
      else if (raw.args.some((arg) => typeof arg !== 'string' && typeof arg !== 'number')) problems.push('every entry of "args" must be text');
      else args = raw.args.map(String);
    }
    const env = stringMap(raw.env, 'env', problems);
    if (raw.cwd !== undefined && (typeof raw.cwd !== 'string' || raw.cwd === '')) problems.push('"cwd" must be a folder path');
    if (raw.envFile !== undefined && (typeof raw.envFile !== 'string' || raw.envFile === '')) problems.push('"envFile" must be a file path');
    if (problems.length > 0) return { ok: false, problems };
    return {
      ok: true,
      disabled,
      entry: {
        type: 'stdio',
        command: raw.command as string,
        args,
        env,
        ...(raw.cwd !== undefined ? { cwd: raw.cwd as string } : {}),
        ...(raw.envFile !== undefined ? { envFile: raw.envFile as string } : {}),
      },
    };
  }
  if (typeof raw.url !== 'string' || raw.url === '') problems.push('"url" must be the server\'s http(s) address');
  else if (!/^https?:\/\//i.test(raw.url) && !raw.url.includes('${'))
    problems.push(`"url" must start with http:// or https://, not ${JSON.stringify(raw.url.slice(0, 80))}`);
  const headers = stringMap(raw.headers, 'headers', problems);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, disabled, entry: { type: httpType!, url: raw.url as string, headers } };
}

/**
 * `cortex.mcp.servers`: the same shape as `servers` in `.vscode/mcp.json`, checked strictly.
 * Disabled servers are dropped here.
 */
export const McpServersSettingSchema = z
  .record(z.string(), z.unknown())
  .default({})
  .transform((servers, ctx) => {
    const out: Record<string, McpServerEntry> = {};
    for (const [name, raw] of Object.entries(servers)) {
      const parsed = parseServerEntry(name, raw, true);
      if (!parsed.ok) {
        for (const problem of parsed.problems) ctx.addIssue({ code: 'custom', message: problem, path: [name] });
        continue;
      }
      if (!parsed.disabled) out[name] = parsed.entry;
    }
    return out;
  });
