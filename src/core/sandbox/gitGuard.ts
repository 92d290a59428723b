// Git runs programs named in its configuration: core.fsmonitor on `git status`, hooks (even
// post-index-change), core.pager, diff.external and diff drivers, textconv, clean/smudge filters,
// gpg for signatures, credential helpers, ssh, remote helpers on a lazy fetch... and the
// repository's own `.git/config` is workspace content. An auto-approved git therefore runs:
// - without the system and user configuration (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null)
//   and without any GIT_* variable from the caller;
// - with command-line settings that switch the known program-running keys off (they beat the
//   repository config, and git hands them to the git processes it starts, in submodules too),
//   plus --no-pager, and --no-ext-diff / --no-textconv where the sub-command takes them;
// - only after the configuration git will actually read (`git config --list`, includes followed)
//   holds nothing but keys known to be inert: anything else (a filter, a diff driver, an include,
//   core.worktree, an unknown key) refuses the call, so a key this list does not know cannot run
//   anything either.

export const GUARD_SETTINGS: ReadonlyArray<readonly [string, string]> = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.sshCommand', 'false'],
  ['core.editor', 'false'],
  ['sequence.editor', 'false'],
  ['credential.helper', ''],
  ['gpg.program', 'false'],
  ['gpg.ssh.program', 'false'],
  ['gpg.x509.program', 'false'],
  ['log.showSignature', 'false'],
  ['diff.ignoreSubmodules', 'all'],
  ['submodule.recurse', 'false'],
  ['protocol.allow', 'never'],
];

const NO_DIFF_PROGRAMS = ['--no-ext-diff', '--no-textconv'];
const EXTRA_FLAGS: Readonly<Record<string, readonly string[]>> = {
  log: NO_DIFF_PROGRAMS,
  show: NO_DIFF_PROGRAMS,
  diff: NO_DIFF_PROGRAMS,
  'stash list': NO_DIFF_PROGRAMS,
  blame: ['--no-textconv'],
  grep: ['--no-textconv'],
};

/** The arguments for `git` that run `args` (an auto-approved git command line) guarded. */
export function guardedGitArgs(args: readonly string[]): string[] {
  const settings = GUARD_SETTINGS.flatMap(([key, value]) => ['-c', `${key}=${value}`]);
  const subLength = args[0] === 'stash' ? 2 : args.length > 0 && !args[0].startsWith('-') ? 1 : 0;
  const sub = args.slice(0, subLength);
  const extra = EXTRA_FLAGS[sub.join(' ')] ?? [];
  return ['--no-pager', ...settings, ...sub, ...extra, ...args.slice(subLength)];
}

/** The command's environment with every GIT_* variable replaced by the guard's. */
export function guardedGitEnv(env: Record<string, string>): Record<string, string> {
  const guarded: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (!/^GIT_/i.test(name)) guarded[name] = value;
  return {
    ...guarded,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_TERMINAL_PROMPT: '0',
    GIT_NO_LAZY_FETCH: '1',
    GIT_PAGER: 'cat',
  };
}

/** Arguments that list the configuration git will read, for `inertConfigProblem`. */
export const CONFIG_LISTING_ARGS: readonly string[] = ['--no-pager', 'config', '--list', '--includes', '--show-scope', '-z'];

/** Keys git writes itself or that only change how things look (lower-case section and name; any subsection). */
const INERT_KEYS: readonly RegExp[] = [
  /^core\.(?:repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol|safecrlf|quotepath|longpaths|sparsecheckout|sparsecheckoutcone|untrackedcache|splitindex|commitgraph|multipackindex|abbrev|compression|loosecompression|preloadindex|checkstat|trustctime|whitespace|fscache|warnambiguousrefs|commentchar|commentstring|packedgitlimit|packedgitwindowsize|deltabasecachelimit|bigfilethreshold|protecthfs|protectntfs)$/,
  /^remote\..+\.(?:url|pushurl|fetch|push|tagopt|prune|prunetags|mirror|skipdefaultupdate|skipfetchall|promisor|partialclonefilter)$/,
  /^branch\..+\.(?:remote|merge|rebase|pushremote|description)$/,
  /^(?:user|author|committer)\.(?:name|email|signingkey)$/,
  /^init\.defaultbranch$/,
  /^pull\.(?:rebase|ff)$/,
  /^push\.(?:default|autosetupremote|followtags)$/,
  /^fetch\.(?:prune|prunetags|writecommitgraph|parallel|fsckobjects)$/,
  /^extensions\.(?:objectformat|worktreeconfig|partialclone|refstorage|preciousobjects|noop)$/,
  /^color\.[a-z.]+$/,
  /^diff\.(?:renames|algorithm|mnemonicprefix|noprefix|colormoved|colormovedws|context|interhunkcontext|statgraphwidth|indentheuristic|submodule|ignoresubmodules|relative|renamelimit|suppressblankempty|dirstat|wserrorhighlight)$/,
  /^log\.(?:date|decorate|abbrevcommit|follow|showroot|mailmap|initialdecorationset|excludedecoration|graphcolors)$/,
  /^status\.(?:short|branch|showuntrackedfiles|relativepaths|showstash|aheadbehind|renames|renamelimit|submodulesummary|displaycommentprefix)$/,
  /^(?:gc|pack|index|feature|advice|column|clone)\.[a-z]+$/,
  /^submodule\..+\.(?:url|active|branch|shallow|fetchrecursesubmodules|ignore)$/,
  /^submodule\.active$/,
  /^rerere\.(?:enabled|autoupdate)$/,
  /^merge\.(?:conflictstyle|ff|renames|renamelimit|log|stat|autostash|directoryrenames)$/,
  /^rebase\.(?:autosquash|autostash|updaterefs|missingcommitscheck|abbreviatecommands|stat|backend)$/,
  /^commit\.(?:gpgsign|verbose|cleanup|status)$/,
  /^tag\.(?:sort|gpgsign|forcesignannotated)$/,
  /^gpg\.format$/,
  /^blame\.(?:date|showemail|blankboundary|showroot|coloring|markunblamablelines|markignoredlines)$/,
  /^lfs\..+$/,
  /^i18n\.(?:commitencoding|logoutputencoding)$/,
  /^grep\.(?:linenumber|patterntype|extendedregexp|column|fullname|fallbacktonoindex|threads)$/,
  /^checkout\.(?:defaultremote|workers|thresholdforparallelism)$/,
  /^(?:worktree\.guessremote|protocol\.version|transfer\.fsckobjects|receive\.fsckobjects|safe\.directory|versionsort\.suffix)$/,
];

/**
 * Reads `git config --list --show-scope -z` output and names the first key that is not known to
 * be inert (core.fsmonitor only as false), or undefined when every key is. Settings given on the
 * command line (scope "command") are the guard's own.
 */
export function inertConfigProblem(listing: string): string | undefined {
  const fields = listing.split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i];
    const entry = fields[i + 1];
    const newline = entry.indexOf('\n');
    const key = newline < 0 ? entry : entry.slice(0, newline);
    const value = newline < 0 ? '' : entry.slice(newline + 1);
    if (scope === 'command') continue;
    const lower = key.toLowerCase();
    if (lower === 'core.fsmonitor' && value.toLowerCase() === 'false') continue;
    if (INERT_KEYS.some((pattern) => pattern.test(lower))) continue;
    return `the ${scope} git configuration sets "${key}", which is not known to be inert (it may run a program or read files outside the workspace)`;
  }
  return undefined;
}
