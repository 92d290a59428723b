import path from 'node:path';
import { RememberedRuleSchema, type RememberOffer, type RememberedRule } from '../plan/rememberedApproval';
import { leavesByText, pathCandidates } from './argumentPaths';
import { parseLiteralCommand } from './literalCommand';
import { innerScript, strippedForms } from './segmentViews';

// What a remembered answer covers (docs/design.md, “Remembered approvals”). A command is judged by
// the same reader as the command rules: only a command of literal words (run without a shell)
// can be remembered or matched, so added shell syntax never matches a prefix. A prefix is the
// program and up to two subcommand words (`npm test`, `npm run build`, `git commit`); a later
// command matches when it is exactly the prefix or the prefix followed by plain words. A command
// that hands code to another program (an interpreter, a wrapper, a shell) is remembered as the
// whole command and matches only exactly. A file tool remembers the folder of its paths.

/** A call as the remembered rules see it (the batch runner fills it from the call and its verdict). */
export interface RememberableCall {
  toolName: string;
  /** The exact argument JSON that will run. */
  argumentsJson: string;
  argsHash: string;
  /** For a command tool: the command line as written, and what the command rules found in it. */
  command?: { text: string; handoffs: readonly string[]; errors: readonly string[] };
  /** For a file tool: the paths it declares (as the model wrote them). */
  paths?: readonly string[];
}

const SUBCOMMAND = /^[A-Za-z][A-Za-z0-9_:-]*$/;
const PLAIN_WORD = /^[A-Za-z0-9_\-.,/:@%+=^]+$/;
const MAX_SUBCOMMANDS = 2;
const MAX_PREFIX_WORDS = 16;
const MAX_WORD_CHARS = 200;
/** Programs that run another program given as an argument (here or elsewhere); no prefix can judge what that is. */
const RUNS_ANOTHER = new Set([
  'sudo',
  'doas',
  'su',
  'runuser',
  'chroot',
  'nsenter',
  'unshare',
  'flock',
  'script',
  'eval',
  'ssh',
  'npx',
  'pnpx',
  'bunx',
  'uvx',
  'pipx',
]);
/** Subcommands that run a program named after them (`npm exec X`, `pnpm dlx X`). */
const RUNS_ANOTHER_SUBCOMMAND = new Set(['exec', 'dlx', 'x']);
/** Programs whose `run` runs any command named after it (`uv run X`), unlike `npm run` (a script of package.json). */
const RUN_RUNS_ANOTHER = new Set(['uv', 'poetry', 'pipenv', 'pdm', 'hatch', 'conda', 'docker', 'podman', 'kubectl', 'nix']);

/** What "Approve for this run" would remember for this call, or undefined when nothing may be. */
export function rememberOffer(call: RememberableCall): RememberOffer | undefined {
  if (call.command) {
    const prefix = commandPrefix(call.command);
    return prefix ? { rule: { tool: call.toolName, prefix }, workspace: true } : undefined;
  }
  if (call.paths && call.paths.length > 0) {
    const folders = call.paths.map((p) => folderOf(p));
    if (folders.some((folder) => folder === undefined)) return undefined;
    return { rule: { tool: call.toolName, folder: commonFolder(folders as string[]) }, workspace: false };
  }
  return { rule: { tool: call.toolName, argsHash: call.argsHash }, workspace: false };
}

/** True when `rule` approves `call`: same tool, and the command, paths or exact arguments it covers. */
export function ruleMatches(rule: RememberedRule, call: RememberableCall): boolean {
  if (rule.tool !== call.toolName) return false;
  if ('prefix' in rule) return call.command !== undefined && commandMatches(rule.prefix, call.command);
  if ('folder' in rule) {
    if (!call.paths || call.paths.length === 0) return false;
    return call.paths.every((p) => {
      const folder = folderOf(p);
      return folder !== undefined && isWithin(rule.folder, folder);
    });
  }
  return rule.argsHash === call.argsHash;
}

/**
 * The prefix to remember for a command, or undefined when it cannot be remembered (shell syntax,
 * a command the rules could not fully read, words too long to show).
 */
export function commandPrefix(command: NonNullable<RememberableCall['command']>): string[] | undefined {
  if (command.errors.length > 0) return undefined;
  const literal = parseLiteralCommand(command.text);
  if (!literal.ok) return undefined;
  const words = literal.words;
  if (words.length > MAX_PREFIX_WORDS || words.some((word) => word.length > MAX_WORD_CHARS)) return undefined;
  if (exactOnly(words, command.handoffs)) return [...words];
  const prefix = [words[0]];
  for (const word of words.slice(1, 1 + MAX_SUBCOMMANDS)) {
    if (!SUBCOMMAND.test(word)) break;
    prefix.push(word);
  }
  return prefix;
}

/** A command matches a prefix when it is literal words: the prefix, then only plain words that stay in the workspace by their text. */
export function commandMatches(prefix: readonly string[], command: NonNullable<RememberableCall['command']>): boolean {
  if (command.errors.length > 0) return false;
  const literal = parseLiteralCommand(command.text);
  if (!literal.ok) return false;
  const words = literal.words;
  if (words.length < prefix.length || prefix.some((word, i) => words[i] !== word)) return false;
  const extra = words.slice(prefix.length);
  if (extra.length > 0 && exactOnly(words, command.handoffs)) return false;
  return extra.every((word) => PLAIN_WORD.test(word) && !pathCandidates(word).some(leavesByText));
}

/**
 * Reads the workspace's stored prefixes back: the store is data anyone with access to VS Code's
 * storage could have written, so each entry is validated and a malformed one dropped (with `drop`
 * told why). Only command prefixes are stored.
 */
export function parseStoredPrefixes(value: unknown, drop: (why: string) => void): Array<Extract<RememberedRule, { prefix: string[] }>> {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    drop('the stored list is not a list');
    return [];
  }
  const kept: Array<Extract<RememberedRule, { prefix: string[] }>> = [];
  for (const entry of value) {
    const parsed = RememberedRuleSchema.safeParse(entry);
    if (!parsed.success || !('prefix' in parsed.data)) {
      drop(`a malformed entry ${clipJson(entry)}`);
      continue;
    }
    const rule = parsed.data;
    const literal = parseLiteralCommand(quoteWords(rule.prefix));
    if (rule.tool !== 'run_command' || !literal.ok || literal.words.join('\0') !== rule.prefix.join('\0')) {
      drop(`an entry that is not a literal run_command prefix ${clipJson(entry)}`);
      continue;
    }
    if (!kept.some((other) => sameRule(other, rule))) kept.push(rule);
  }
  return kept;
}

/** Two rules that approve the same thing. */
export function sameRule(a: RememberedRule, b: RememberedRule): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** An interpreter, wrapper or shell: what it runs is not in the prefix, so only the exact command matches. */
function exactOnly(words: readonly string[], handoffs: readonly string[]): boolean {
  if (handoffs.length > 0 || RUNS_ANOTHER.has(words[0])) return true;
  const sub = words[1] ?? '';
  if (RUNS_ANOTHER_SUBCOMMAND.has(sub) || (sub === 'run' && RUN_RUNS_ANOTHER.has(words[0]))) return true;
  return strippedForms([...words]).length > 0 || innerScript([...words]) !== undefined;
}

/** The workspace-relative folder holding `p` ('.' for the root), or undefined for a path outside it by its text. */
function folderOf(p: string): string | undefined {
  if (p.includes('\0') || p.includes('\\') || leavesByText(p)) return undefined;
  const normal = path.posix.normalize(p);
  if (normal.startsWith('../') || normal === '..' || path.posix.isAbsolute(normal)) return undefined;
  return path.posix.dirname(normal);
}

function commonFolder(folders: string[]): string {
  let common = folders[0].split('/');
  for (const folder of folders.slice(1)) {
    const parts = folder.split('/');
    let i = 0;
    while (i < common.length && i < parts.length && common[i] === parts[i]) i++;
    common = common.slice(0, i);
  }
  return common.length === 0 ? '.' : common.join('/');
}

function isWithin(folder: string, inner: string): boolean {
  return folder === '.' || inner === folder || inner.startsWith(`${folder}/`);
}

function quoteWords(words: readonly string[]): string {
  return words.map((word) => (PLAIN_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function clipJson(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
