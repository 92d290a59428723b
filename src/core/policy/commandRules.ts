import { codeHandoffs } from './codeHandoff';
import { parseCommandLine, type CommandSegment, type ParsedCommandLine, type Redirection } from './commandSegments';
import { DEFAULT_DENIED_COMMANDS, describeDeniedCommand, judgeDefaultSafe } from './defaultCommandRules';
import { parseLiteralCommand } from './literalCommand';
import { denyViews, innerScript, strippedForms } from './segmentViews';

// The run_command policy: `cortex.policy.commands` (user allow/deny regexes) plus the built-in
// rules. Two questions, answered separately:
// - Deny: is any part of the command forbidden? Asked of the command as a shell would read it
//   (every simple command, substitutions and `sh -c '…'` bodies included), so a forbidden
//   command cannot hide in a compound line. The line is read as dash reads it (`/bin/sh` on
//   Debian and Ubuntu) and as bash reads it (`/bin/sh` on macOS and some Linux systems): the two
//   differ on `$'…'` and <(…), and a command either reading finds is checked.
// - Allow: may it run without asking a person? Only a command made of literal words
//   (literalCommand.ts) can be, because only such a command is run without a shell, from exactly
//   the words judged here. Everything else runs through `/bin/sh -c` after a person approved the
//   exact text.

export { DEFAULT_DENIED_COMMANDS, describeDeniedCommand } from './defaultCommandRules';

export type CommandDecision = 'allow' | 'deny' | 'confirm';

/** `cortex.policy.commands`: JavaScript regular expressions (not anchored for you). */
export interface CommandRules {
  allow: string[];
  deny: string[];
}

export interface SegmentVerdict {
  text: string;
  decision: CommandDecision;
  /** The rule that decided, e.g. `cortex.policy.commands.deny ^git push` or `default-safe git status`. */
  rule?: string;
  reason: string;
}

export interface CommandEvaluation {
  decision: CommandDecision;
  /** Names the deciding part and rule. */
  reason: string;
  /** Each simple command a shell would run, with its verdict: dash's reading, then what only bash would read. */
  segments: SegmentVerdict[];
  /** Every redirection as written. */
  redirections: string[];
  /** Each program the command hands code to, which no deny rule can look inside (codeHandoff.ts); shown when a person is asked. */
  handoffs: string[];
  /** Why the command could not be checked reliably (invalid deny rules, parse errors): never auto-allowed. */
  errors: string[];
  /**
   * The literal words, when the command is made only of them: it then runs from these words
   * without a shell. Undefined: it can only run through `/bin/sh -c`, after a person's approval.
   */
  argv?: string[];
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

interface Denial {
  segment: string;
  reason: string;
  rule?: string;
}

const MAX_INNER_DEPTH = 4;
const MAX_CACHED_PATTERNS = 500;
const patternCache = new Map<string, RegExp | Error>();

/**
 * Decides one command line: deny when a deny rule (user or default) matches any part of it or it
 * writes to a device; allow when it is made of literal words and a user allow rule or a default
 * safe rule covers it; confirm otherwise (and whenever a deny rule is invalid).
 */
export function evaluateCommand(command: string, rules: CommandRules): CommandEvaluation {
  const compiled = compileRules(rules);
  const { parsed, segments: readSegments, redirections: readRedirections } = readBothShells(command);
  const literal = parseLiteralCommand(command);
  const argv = literal.ok ? literal.words : undefined;
  const text = command.trim();
  const errors = [...compiled.errors];
  if (!literal.ok) errors.push(...parsed.errors.map((error) => `could not parse the command: ${error}`));

  const denials = new Map<CommandSegment, Denial>();
  for (const segment of readSegments) {
    const denial = segmentDenial(segment, compiled, 0);
    if (denial) denials.set(segment, denial);
  }
  const wholeDenial = userDenial([text, ...(argv ? [argv.join(' '), ...argv] : [])], compiled);
  const deviceWrite = readRedirections.find(writesToDevice);

  let decision: CommandDecision;
  let reason: string;
  let allowRule: string | undefined;
  const firstDenial = [...denials.values()][0];
  if (firstDenial) {
    decision = 'deny';
    reason = `segment "${firstDenial.segment}" is denied: ${firstDenial.reason}`;
  } else if (wholeDenial) {
    decision = 'deny';
    reason = `the command is denied: ${wholeDenial.reason}`;
  } else if (deviceWrite) {
    decision = 'deny';
    reason = `redirection "${deviceWrite.text}" writes to a device (default deny)`;
  } else if (errors.length > 0) {
    decision = 'confirm';
    reason = errors[0]!;
  } else if (!argv) {
    decision = 'confirm';
    reason = `it is not made of literal words (${literal.ok ? '' : literal.reason}), so it can only run through /bin/sh -c with a person's approval`;
  } else {
    const userAllow = compiled.allow.find(({ regex }) => regex.test(text));
    const safe = judgeDefaultSafe(argv);
    if (userAllow) {
      decision = 'allow';
      allowRule = `cortex.policy.commands.allow ${userAllow.pattern}`;
      reason = `matches the cortex.policy.commands allow rule ${JSON.stringify(userAllow.pattern)}`;
    } else if (safe.safe) {
      decision = 'allow';
      allowRule = `default-safe ${safe.label}`;
      reason = `"${safe.label}" is a default safe (read-only) command`;
    } else {
      decision = 'confirm';
      reason = `no allow rule covers it: ${safe.reason}`;
    }
  }

  const segments: SegmentVerdict[] = readSegments.map((segment) => {
    const denial = denials.get(segment);
    if (denial) return withRule({ text: segment.text, decision: 'deny', reason: denial.reason }, denial.rule);
    if (wholeDenial) return withRule({ text: segment.text, decision: 'deny', reason: wholeDenial.reason }, wholeDenial.rule);
    if (decision === 'allow') return withRule({ text: segment.text, decision: 'allow', reason }, allowRule);
    return { text: segment.text, decision: 'confirm', reason };
  });
  const result: CommandEvaluation = {
    decision,
    reason,
    segments,
    redirections: parsed.redirections.map((redirection) => redirection.text),
    handoffs: codeHandoffs(readSegments),
    errors,
  };
  if (argv) result.argv = argv;
  return result;
}

function withRule(verdict: SegmentVerdict, rule: string | undefined): SegmentVerdict {
  return rule === undefined ? verdict : { ...verdict, rule };
}

/** A user deny rule matching any of `texts`. */
function userDenial(texts: string[], rules: CompiledRules): Denial | undefined {
  for (const { pattern, regex } of rules.deny) {
    if (texts.some((text) => regex.test(text))) {
      return {
        segment: texts[0] ?? '',
        reason: `matches the cortex.policy.commands deny rule ${JSON.stringify(pattern)}`,
        rule: `cortex.policy.commands.deny ${pattern}`,
      };
    }
  }
  return undefined;
}

/**
 * A deny rule matching one simple command: user rules see it as written, unquoted, with wrappers
 * stripped, and each of its words; default rules see the command forms only. `sh -c '…'` and
 * `eval …` bodies are checked in turn.
 */
function segmentDenial(segment: CommandSegment, rules: CompiledRules, depth: number): Denial | undefined {
  const views = denyViews(segment);
  const values = segment.words.map((word) => word.value);
  const user = userDenial([...views, ...values], rules);
  if (user) return { ...user, segment: segment.text };
  for (const regex of DEFAULT_DENIED_COMMANDS) {
    if (views.some((view) => regex.test(view)))
      return { segment: segment.text, reason: `default deny rule: ${describeDeniedCommand(regex)}`, rule: `default-deny ${regex}` };
  }
  if (depth >= MAX_INNER_DEPTH) return undefined;
  for (const form of [values, ...strippedForms(values)]) {
    const script = innerScript(form);
    if (script === undefined) continue;
    for (const inner of readBothShells(script).segments) {
      const denial = segmentDenial(inner, rules, depth + 1);
      if (denial) return { segment: segment.text, reason: `it runs "${script}": segment "${denial.segment}" is denied: ${denial.reason}`, rule: denial.rule };
    }
  }
  return undefined;
}

/**
 * The line as dash reads it, plus every simple command and redirection bash would read that dash
 * does not: which of the two runs it depends on the machine's `/bin/sh`.
 */
function readBothShells(command: string): { parsed: ParsedCommandLine; segments: CommandSegment[]; redirections: Redirection[] } {
  const parsed = parseCommandLine(command);
  const bash = parseCommandLine(command, 'bash');
  const key = (segment: CommandSegment) => [segment.text, ...segment.words.map((word) => word.value)].join('\u0000');
  const known = new Set(parsed.segments.map(key));
  const knownRedirections = new Set(parsed.redirections.map((redirection) => redirection.text));
  return {
    parsed,
    segments: [...parsed.segments, ...bash.segments.filter((segment) => !known.has(key(segment)))],
    redirections: [...parsed.redirections, ...bash.redirections.filter((redirection) => !knownRedirections.has(redirection.text))],
  };
}

const OUTPUT_OPERATORS = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);
const DEVICES = /^\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|loop|mapper\/|mem$|kmem$|port$)/;

function writesToDevice(redirection: Redirection): boolean {
  return OUTPUT_OPERATORS.has(redirection.operator) && DEVICES.test(redirection.target);
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
