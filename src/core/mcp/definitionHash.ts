import { createHash } from 'node:crypto';
import type { McpServerEntry } from '../config/mcpTypes';

// A workspace server is allowed for one exact definition: the hash covers the name and every field
// as written in the file (variables not yet substituted, so an input's value is not part of it),
// so a changed command, argument, variable or URL asks again.

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** sha256 (hex) of the server's name and definition as written. */
export function serverDefinitionHash(name: string, entry: McpServerEntry): string {
  return createHash('sha256').update(canonical({ name, entry })).digest('hex');
}

/** The command line a person is asked to allow, quoted where a word needs it. */
export function describeServerCommand(entry: McpServerEntry): string {
  if (entry.type !== 'stdio') return `${entry.type === 'sse' ? 'SSE' : 'HTTP'} server at ${entry.url}`;
  const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  const env = Object.keys(entry.env);
  return (
    [entry.command, ...entry.args].map(quote).join(' ') + (env.length > 0 ? ` (environment: ${env.join(', ')})` : '') + (entry.cwd ? ` in ${entry.cwd}` : '')
  );
}
