// The built-in command rules, in the spirit of VS Code 1.139's `chat.tools.terminal.autoApprove`
// defaults: a short list of read-only commands that need no confirmation, with the arguments that
// would make them write or run something carved out, and a short list of clearly destructive
// commands that are always denied. Neither list tries to be complete: anything not listed needs a
// confirmation (or a user rule in `cortex.policy.commands`). Workspace trust stays the real boundary.
//
// DEFAULT_SAFE_COMMANDS are matched against a segment's *canonical* text (quotes removed, words
// joined by one space, leading shell keywords like `then`/`do` dropped), so quoting cannot hide an
// excluded option (`find . "-exec" …`). On top of the regexes, `commandRules.ts` refuses the default
// allow when (1) a word starts with an expansion ($x, $(…), *, {a,b}, $'…') or is an option containing
// one, since it could expand into an excluded option (wildcard injection: a file named `-delete`),
// or (2) an argument is a path outside the workspace (absolute, ~, ..), except for commands that
// only print their arguments. Stricter than VS Code on purpose: file tools are jailed to the
// workspace, so the "safe" shell reads are too.
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

/**
 * `--name` or any abbreviation of it down to `min` letters, followed by `=`, a space or the end:
 * GNU getopt and git accept unambiguous abbreviations (`sort --out=f` is `sort --output=f`).
 */
function longOption(name: string, min = 1): string {
  let tail = '';
  for (let i = name.length - 1; i >= min; i--) tail = `(?:${escape(name[i]!)}${tail})?`;
  return `--${escape(name.slice(0, min))}${tail}(?:=|\\s|$)`;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `^name`, optionally followed by arguments, none of which match `forbidden`. */
function command(name: string, forbidden?: string): RegExp {
  const guard = forbidden ? `(?![\\s\\S]*(?:${forbidden}))` : '';
  return new RegExp(`^(?:${name})${guard}(?:\\s[\\s\\S]*)?$`);
}

/**
 * Read-only commands auto-allowed without confirmation:
 * - printing/inspection: echo, printf, pwd, ls, cat, head, tail, wc, nl, tr, cut, cmp, diff, comm,
 *   which, type, basename, dirname, realpath, readlink, stat, du, df, whoami, id, uname, sleep,
 *   true, false, test/[ ]/[[ ]], cd (to a directory inside the workspace only);
 * - search: grep/egrep/fgrep, rg (not --pre, which runs a program per file), git grep (not
 *   -O/--open-files-in-pager, which runs a pager command);
 * - with carve-outs: find (not -delete, -exec, -execdir, -ok, -okdir, -fprint, -fprint0, -fprintf,
 *   -fls), sort (not -o/--output/--compress-program), tree (not -o), date (not -s/--set),
 *   column (not -c with a huge width), file (not -C/--compile); long options also in their
 *   abbreviated forms (`sort --out=f`), which GNU tools and git accept;
 * - git read-only sub-commands: status, log, show, diff, blame, shortlog, describe, rev-parse,
 *   ls-files, ls-tree, cat-file, merge-base (log/show/diff not --output=), `git branch` / `git tag`
 *   listing forms only, `git remote [-v]`, `git stash list`, `git config --get/--list`;
 * - version queries of common toolchains (`node --version`, `python3 -V`, `go version`...).
 */
export const DEFAULT_SAFE_COMMANDS: RegExp[] = [
  command('echo|printf|pwd|ls|cat|head|tail|wc|nl|tr|cut|cmp|diff|comm|which|type|basename|dirname|realpath|readlink|stat|du|df|whoami|id|uname|sleep|true|false'),
  command('test|\\[|\\[\\['),
  /^cd [^\s-][\s\S]*$/,
  command('grep|egrep|fgrep'),
  command('rg', '\\s--pre(?:=|\\s|$)'),
  command('find', '\\s-(?:delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)(?:\\s|$)'),
  command('sort', `\\s(?:-[A-Za-z]*o|--co|${longOption('output')})`),
  command('tree', '\\s-[A-Za-z]*o'),
  command('date', `\\s(?:-[A-Za-z]*s|${longOption('set')})`),
  command('column', '\\s-c\\s*[0-9]{4,}'),
  command('file', '\\s(?:-[A-Za-z]*C|--comp)'),
  command('git (?:status|blame|shortlog|describe|rev-parse|ls-files|ls-tree|cat-file|merge-base)'),
  command('git (?:log|show|diff)', `\\s${longOption('output', 2)}`),
  command('git grep', '\\s(?:-[A-Za-z]*O|--op)'),
  /^git branch(?: (?:-a|-r|-v|-vv|-l|--all|--remotes|--verbose|--list|--show-current|--no-color))*$/,
  /^git tag(?: (?:-l|--list)(?: [^\s-]\S*)*)?$/,
  /^git remote(?: -v| --verbose)?$/,
  command('git stash list'),
  /^git config (?:--list|-l|--get(?:-all)? \S+)$/,
  /^(?:node|npm|npx|pnpm|yarn|bun|deno|tsc|python|python3|pip|pip3|go|cargo|rustc|java|javac|ruby|gem|dotnet|git|make|cmake|gcc|g\+\+|clang) (?:--version|-v|-V|-version|version)$/,
];

/** Commands that only print or test their arguments: the outside-the-workspace path guard does not apply. */
export const NO_FILE_ACCESS_COMMANDS = /^(?:echo|printf|pwd|which|type|basename|dirname|whoami|id|uname|sleep|true|false|test|\[|\[\[)(?:\s|$)/;

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
  deny(new RegExp(`^rm(?=[\\s\\S]*\\s(?:-[A-Za-z]*[rR][A-Za-z]*|--recursive)(?:\\s|$))\\s[\\s\\S]*\\s${ROOTISH}(?:\\s|$)`), 'recursive rm of /, the home directory or a system directory'),
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
