import { parseCommandLine, type CommandSegment, type Redirection } from './commandSegments';
import { DEFAULT_DENIED_COMMANDS, DEFAULT_SAFE_COMMANDS, NO_FILE_ACCESS_COMMANDS, describeDeniedCommand } from './defaultCommandRules';
import { denyViews, innerScript, isRiskyWord, pointsOutsideWorkspace, strippedForms, withoutKeywords } from './segmentViews';

// The run_command policy: `cortex.policy.commands` (user allow/deny regexes) plus the built-in
// lists, matched per segment of a compound command. A command is auto-allowed only when every
// segment (substitutions included) is allowed and nothing writes to a file; one denied segment
// denies the whole command.

export { DEFAULT_DENIED_COMMANDS, DEFAULT_SAFE_COMMANDS, describeDeniedCommand } from './defaultCommandRules';

export type CommandDecision = 'allow' | 'deny' | 'confirm';

/** `cortex.policy.commands`: JavaScript regular expressions (not anchored for you), tested per segment. */
export interface CommandRules {
  allow: string[];
  deny: string[];
}

export interface SegmentVerdict {
  text: string;
  decision: CommandDecision;
  /** The rule that decided, e.g. `cortex.policy.commands.deny ^git push` or `default-safe /^ls…/`. */
  rule?: string;
  reason: string;
}

export interface CommandEvaluation {
  decision: CommandDecision;
  /** Names the deciding segment (or redirection) and rule. */
  reason: string;
  segments: SegmentVerdict[];
  /** Every redirection as written. */
  redirections: string[];
  /** Why the command could not be checked reliably (parse errors, invalid deny rules): never auto-allowed. */
  errors: string[];
}

interface CompiledRule {
  pattern: string;
  regex: RegExp;
}

interface CompiledRules {
  allow: CompiledRule[];
  deny: CompiledRule[];
  errors: string[];
}

const MAX_INNER_DEPTH = 4;
const MAX_CACHED_PATTERNS = 500;
const patternCache = new Map<string, RegExp | Error>();

/**
 * Decides one command line. Per segment: a deny rule (user or default) → deny; a user allow rule
 * or a default-safe rule → allow; otherwise confirm. Whole command: any deny (or a write to a
 * device) → deny; every segment allowed, no write redirection and no parse error → allow; else confirm.
 */
export function evaluateCommand(command: string, rules: CommandRules): CommandEvaluation {
  return evaluate(command, compileRules(rules), 0);
}

function evaluate(command: string, rules: CompiledRules, depth: number): CommandEvaluation {
  const parsed = parseCommandLine(command);
  const errors = [...rules.errors, ...parsed.errors.map((error) => `could not parse the command: ${error}`)];
  const segments = parsed.segments.map((segment) => evaluateSegment(segment, rules, depth));
  const redirections = parsed.redirections.map((redirection) => ({ redirection, ...classifyRedirection(redirection) }));
  const result = (decision: CommandDecision, reason: string): CommandEvaluation => ({
    decision,
    reason,
    segments,
    redirections: parsed.redirections.map((redirection) => redirection.text),
    errors,
  });

  const denied = segments.find((segment) => segment.decision === 'deny');
  if (denied) return result('deny', `segment "${denied.text}" is denied: ${denied.reason}`);
  const deviceWrite = redirections.find((entry) => entry.decision === 'deny');
  if (deviceWrite) return result('deny', `redirection "${deviceWrite.redirection.text}" ${deviceWrite.why}`);
  if (errors.length > 0) return result('confirm', errors[0]!);
  if (segments.length === 0) return result('confirm', 'the command is empty');
  const unallowed = segments.find((segment) => segment.decision !== 'allow');
  if (unallowed) return result('confirm', `segment "${unallowed.text}" needs confirmation: ${unallowed.reason}`);
  const write = redirections.find((entry) => entry.decision === 'confirm');
  if (write) return result('confirm', `redirection "${write.redirection.text}" ${write.why}`);
  const list = segments.map((segment) => `"${segment.text}" (${segment.reason})`).join('; ');
  return result('allow', `every segment is allowed: ${list}`);
}

function evaluateSegment(segment: CommandSegment, rules: CompiledRules, depth: number): SegmentVerdict {
  const verdict = (decision: CommandDecision, reason: string, rule?: string): SegmentVerdict =>
    rule === undefined ? { text: segment.text, decision, reason } : { text: segment.text, decision, rule, reason };

  const views = denyViews(segment);
  for (const { pattern, regex } of rules.deny) {
    if (views.some((view) => regex.test(view))) {
      return verdict('deny', `matches the cortex.policy.commands deny rule ${JSON.stringify(pattern)}`, `cortex.policy.commands.deny ${pattern}`);
    }
  }
  for (const regex of DEFAULT_DENIED_COMMANDS) {
    if (views.some((view) => regex.test(view))) return verdict('deny', `default deny rule: ${describeDeniedCommand(regex)}`, `default-deny ${regex}`);
  }
  // `sh -c '…'` and `eval …` run a program of their own: a denied command inside denies this one.
  const values = segment.words.map((word) => word.value);
  if (depth < MAX_INNER_DEPTH) {
    for (const form of [values, ...strippedForms(values)]) {
      const script = innerScript(form);
      if (script === undefined) continue;
      const inner = evaluate(script, rules, depth + 1);
      if (inner.decision === 'deny') {
        const rule = inner.segments.find((entry) => entry.decision === 'deny')?.rule;
        return verdict('deny', `it runs "${script}": ${inner.reason}`, rule);
      }
    }
  }

  const words = withoutKeywords(segment.words);
  if (segment.words.length > 0 && words.length === 0) return verdict('allow', 'a shell keyword on its own runs nothing', 'shell-keyword');
  const rawCommand = words.map((word) => word.raw).join(' ');
  for (const { pattern, regex } of rules.allow) {
    if (regex.test(segment.text) || regex.test(rawCommand)) {
      return verdict('allow', `matches the cortex.policy.commands allow rule ${JSON.stringify(pattern)}`, `cortex.policy.commands.allow ${pattern}`);
    }
  }
  if (words.length === 0) return verdict('confirm', 'it only redirects (no command)');
  const canonical = words.map((word) => word.value).join(' ');
  const safe = DEFAULT_SAFE_COMMANDS.find((regex) => regex.test(canonical));
  if (!safe) return verdict('confirm', 'no allow rule covers it');
  const risky = words.find(isRiskyWord);
  if (risky) return verdict('confirm', `"${risky.raw}" is expanded by the shell and could turn into anything, so the default safe rule does not apply`);
  if (!NO_FILE_ACCESS_COMMANDS.test(canonical)) {
    const outside = words.slice(1).find((word) => pointsOutsideWorkspace(word.value));
    if (outside) return verdict('confirm', `"${outside.raw}" points outside the workspace, so the default safe rule does not apply`);
  }
  const name = words[0]!.value === 'git' && words[1] ? `git ${words[1].value}` : words[0]!.value;
  return verdict('allow', `"${name}" is a default safe (read-only) command`, `default-safe ${safe}`);
}

const OUTPUT_OPERATORS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);
const HARMLESS_SINKS = /^\/dev\/(?:null|stdout|stderr|tty|fd\/\d+)$/;
const DEVICES = /^\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|loop|mapper\/|mem$|kmem$|port$)/;
const NETWORK = /^\/dev\/(?:tcp|udp)\//;

/** allow: no file is written (fd duplication, /dev/null, here-documents, reads inside the workspace). */
function classifyRedirection(redirection: Redirection): { decision: CommandDecision; why: string } {
  const { operator, target } = redirection;
  if (operator === '<<' || operator === '<<-' || operator === '<<<') return { decision: 'allow', why: 'is inline input' };
  if ((operator === '>&' || operator === '<&') && /^(?:\d+-?|-)$/.test(target)) return { decision: 'allow', why: 'duplicates a file descriptor' };
  if (NETWORK.test(target)) return { decision: 'confirm', why: 'opens a network connection' };
  const writes = OUTPUT_OPERATORS.has(operator) || operator === '>&';
  if (!writes) {
    return pointsOutsideWorkspace(target) ? { decision: 'confirm', why: 'reads a file outside the workspace' } : { decision: 'allow', why: 'reads a file' };
  }
  if (HARMLESS_SINKS.test(target)) return { decision: 'allow', why: 'writes to a standard stream' };
  if (DEVICES.test(target)) return { decision: 'deny', why: 'writes to a device (default deny)' };
  return { decision: 'confirm', why: 'writes to a file' };
}

function compileRules(rules: CommandRules): CompiledRules {
  const errors: string[] = [];
  const compile = (patterns: readonly string[] | undefined, kind: 'allow' | 'deny'): CompiledRule[] => {
    const compiled: CompiledRule[] = [];
    for (const pattern of patterns ?? []) {
      const regex = compilePattern(pattern);
      if (regex instanceof Error) {
        // An allow rule that cannot compile allows nothing; a deny rule that cannot compile means
        // the command cannot be checked, so it is never auto-allowed.
        if (kind === 'deny') errors.push(`invalid cortex.policy.commands deny rule ${JSON.stringify(pattern)}: ${regex.message}`);
      } else compiled.push({ pattern, regex });
    }
    return compiled;
  };
  return { allow: compile(rules?.allow, 'allow'), deny: compile(rules?.deny, 'deny'), errors };
}

function compilePattern(pattern: string): RegExp | Error {
  let compiled = patternCache.get(pattern);
  if (compiled === undefined) {
    try {
      compiled = new RegExp(pattern);
    } catch (error) {
      compiled = error instanceof Error ? error : new Error(String(error));
    }
    if (patternCache.size >= MAX_CACHED_PATTERNS) patternCache.clear();
    patternCache.set(pattern, compiled);
  }
  return compiled;
}
