import { argumentLeavingByText } from './argumentPaths';
import { judgeFind } from './safeFind';
import { judgeGit } from './safeGit';
import { judgeSpecCommand, VERSION_QUERIES } from './safeCommands';

// The built-in command rules: a list of read-only commands that run without confirmation and a
// short list of clearly destructive commands that are always denied. Anything else needs a
// person's approval (or a user rule in `cortex.policy.commands`).
//
// Default-safe commands are judged on the literal words of a command (see literalCommand.ts), so
// there is no quoting, expansion or operator left to hide anything: the program name must be
// listed, every option must be on that program's allowlist (safeCommands.ts, safeFind.ts,
// safeGit.ts), and no argument may point outside the workspace by its text (absolute, `~`, `..`),
// except for commands that only print their arguments. Right before an auto-approved command runs,
// its arguments are checked again with symbolic links followed (argumentPaths.ts).
//
// DEFAULT_DENIED_COMMANDS are matched against the segment as written, its canonical text, and the
// text after leading assignments, keywords and wrappers (env, nohup, timeout, command, exec, xargs…)
// and a path on the command name (/bin/rm) are stripped, so `X=1 nohup /bin/rm -rf /` is still denied.

const DENY_LABELS = new WeakMap<RegExp, string>();

function deny(regex: RegExp, label: string): RegExp {
  DENY_LABELS.set(regex, label);
  return regex;
}

/** What a default deny rule protects against, for reasons shown to the user and the model. */
export function describeDeniedCommand(regex: RegExp): string {
  return DENY_LABELS.get(regex) ?? regex.toString();
}

export type SafeJudgement =
  | { safe: true; label: string; /** Its arguments may name files: they must stay inside the workspace. */ checksPaths: boolean }
  | { safe: false; reason: string };

/** Whether literal words `argv` form a default-safe (read-only, inside the workspace) command. */
export function judgeDefaultSafe(argv: readonly string[]): SafeJudgement {
  const [program, ...args] = argv;
  if (program === undefined) return { safe: false, reason: 'the command is empty' };
  let judged;
  if (program === 'git') judged = judgeGit(args);
  else if (program === 'find') judged = judgeFind(args);
  else if (Object.hasOwn(VERSION_QUERIES, program)) {
    judged =
      args.length === 1 && VERSION_QUERIES[program].includes(args[0])
        ? { safe: true as const, printsOnly: true }
        : { safe: false as const, reason: `${program}: only ${VERSION_QUERIES[program].join(' or ')} is read-only` };
  } else judged = judgeSpecCommand(program, args);
  if (judged === undefined) return { safe: false, reason: `"${program}" is not a default safe (read-only) command` };
  if (!judged.safe) return judged;
  if (!judged.printsOnly) {
    const outside = argumentLeavingByText(args);
    if (outside !== undefined) return { safe: false, reason: `"${outside}" points outside the workspace` };
  }
  const name = program === 'git' && args[0] && !args[0].startsWith('-') ? `git ${args[0] === 'stash' ? 'stash list' : args[0]}` : program;
  return { safe: true, label: name, checksPaths: !judged.printsOnly };
}

// Targets whose loss is catastrophic: the root, the home directory, top-level system directories.
const ROOTISH = String.raw`(?:/+\*?|~/?\*?|\$\{?HOME\}?/?\*?|/(?:bin|boot|dev|etc|home|lib|lib32|lib64|opt|proc|root|sbin|srv|sys|usr|var|Users|System|Library|Applications)/?\*?)`;

/**
 * Clearly destructive commands, always denied (a user allow rule cannot override them):
 * recursive rm of /, ~, $HOME or a top-level system directory, rm --no-preserve-root; chmod/chown/
 * chgrp on those; privilege escalation (sudo, su, doas, pkexec, run0); a bare shell or
 * interpreter reading its program from stdin (the `curl … | sh` pattern; `source /dev/stdin`);
 * disk formatting/partitioning (mkfs*, mke2fs, mkswap, wipefs, fdisk, sfdisk, cfdisk, parted);
 * dd or shred onto a device; moving files to /dev/null; shutdown/reboot/halt/poweroff, init 0/6,
 * systemctl poweroff/reboot; `kill -9 -1` (every process); `crontab -r`.
 */
export const DEFAULT_DENIED_COMMANDS: RegExp[] = [
  deny(
    new RegExp(`^rm(?=[\\s\\S]*\\s(?:-[A-Za-z]*[rR][A-Za-z]*|--recursive)(?:\\s|$))\\s[\\s\\S]*\\s${ROOTISH}(?:\\s|$)`),
    'recursive rm of /, the home directory or a system directory',
  ),
  deny(/^rm\s[\s\S]*--no-preserve-root/, 'rm --no-preserve-root'),
  deny(new RegExp(`^(?:chmod|chown|chgrp)\\s[\\s\\S]*\\s${ROOTISH}(?:\\s|$)`), 'changing permissions or owner of /, the home directory or a system directory'),
  deny(/^(?:sudo|su|doas|pkexec|run0)(?:\s|$)/, 'privilege escalation'),
  deny(/^(?:ba|da|k|z|tc|c|fi|a|mk)?sh(?:\s+(?:-s|-)(?:\s[\s\S]*)?)?$/, 'a shell running a script piped into it (curl … | sh)'),
  deny(/^(?:source|\.)\s+\/dev\/(?:stdin|fd\/0)(?:\s|$)/, 'sourcing a script piped into the shell'),
  deny(/^(?:python[0-9.]*|perl|ruby|node|php)\s+-(?:\s|$)/, 'an interpreter running a script piped into it'),
  deny(/^(?:mkfs(?:\.[\w-]+)?|mke2fs|mkswap|wipefs|fdisk|sfdisk|cfdisk|parted)(?:\s|$)/, 'formatting or partitioning a disk'),
  deny(/^dd\s[\s\S]*\bof=\/dev\/(?!null(?:\s|$))/, 'dd onto a device'),
  deny(/^shred\s[\s\S]*\s\/dev\//, 'shredding a device'),
  deny(/^mv\s[\s\S]*\s\/dev\/null$/, 'moving files to /dev/null'),
  deny(/^(?:shutdown|reboot|halt|poweroff)(?:\s|$)/, 'shutting down or rebooting the machine'),
  deny(/^(?:init|telinit)\s+[06](?:\s|$)/, 'shutting down or rebooting the machine'),
  deny(/^systemctl\s+(?:poweroff|reboot|halt|kexec)(?:\s|$)/, 'shutting down or rebooting the machine'),
  deny(/^kill\s+(?:-\S+\s+)+-1\s*$/, 'killing every process'),
  deny(/^crontab\s+(?:-\S+\s+)*-r(?:\s|$)/, 'deleting every cron job'),
];
