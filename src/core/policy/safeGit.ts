import { scanOptions, type OptionSpec } from './optionScanner';
import type { SpecJudgement } from './safeCommands';

// Read-only git, by allowlist. No option may come before the sub-command (that is where -c,
// -C, --git-dir, --work-tree, --exec-path, -p/--paginate, --namespace... live). Per sub-command only
// listed options are accepted; left out on purpose: --output (every diff-producing sub-command,
// blame and shortlog included), --ext-diff, --textconv, --show-signature (runs gpg), --submodule,
// -O (order file), blame --contents/-S/--ignore-revs-file, grep -O/--open-files-in-pager and
// --recurse-submodules, cat-file --filters/--textconv/--batch*, branch/tag forms that create,
// delete, move or verify, `remote show` (contacts the remote). Auto-approved git also runs with a
// configuration that cannot start programs (see src/core/sandbox/gitGuard.ts).

const DIFF_AND_LOG: OptionSpec = {
  flags: 'pusqzMCBDRabwWmctrgiEFP',
  valued: 'nUSGlL',
  numeric: true,
  long: [
    'oneline',
    'graph',
    'all',
    'no-decorate',
    'shortstat',
    'numstat',
    'name-only',
    'name-status',
    'abbrev-commit',
    'no-abbrev-commit',
    'no-merges',
    'merges',
    'first-parent',
    'reverse',
    'patch',
    'no-patch',
    'follow',
    'pickaxe-regex',
    'pickaxe-all',
    'relative-date',
    'no-color',
    'left-right',
    'cherry-pick',
    'cherry-mark',
    'cherry',
    'ancestry-path',
    'simplify-by-decoration',
    'topo-order',
    'date-order',
    'author-date-order',
    'full-history',
    'raw',
    'summary',
    'no-renames',
    'source',
    'boundary',
    'patch-with-stat',
    'patch-with-raw',
    'full-index',
    'binary',
    'ignore-space-change',
    'ignore-all-space',
    'ignore-blank-lines',
    'ignore-space-at-eol',
    'ignore-cr-at-eol',
    'minimal',
    'patience',
    'histogram',
    'text',
    'compact-summary',
    'log-size',
    'parents',
    'children',
    'use-mailmap',
    'mailmap',
    'no-mailmap',
    'no-notes',
    'exit-code',
    'check',
    'quiet',
    'regexp-ignore-case',
    'extended-regexp',
    'fixed-strings',
    'perl-regexp',
    'basic-regexp',
    'all-match',
    'invert-grep',
    'no-ext-diff',
    'no-textconv',
    'full-diff',
    'reflog',
    'walk-reflogs',
    'cc',
    'combined-all-paths',
    'no-prefix',
    'default-prefix',
    'dense',
    'sparse',
    'irreversible-delete',
    'function-context',
    'cached',
    'staged',
    'no-index',
    'merge-base',
    'ita-invisible-in-index',
    'ita-visible-in-index',
    'no-stat',
    'remove-empty',
    'single-worktree',
    'no-min-parents',
    'no-max-parents',
    'date-order',
    'simplify-merges',
    'show-pulls',
    'in-commit-order',
    'no-walk',
    'do-walk',
    'indent-heuristic',
    'no-indent-heuristic',
    'no-relative',
    'no-color-moved',
    'no-color-moved-ws',
    'no-rename-empty',
    'rename-empty',
    'stdin',
  ],
  longValued: [
    'max-count',
    'skip',
    'since',
    'after',
    'until',
    'before',
    'author',
    'committer',
    'grep',
    'date',
    'format',
    'diff-filter',
    'encoding',
    'unified',
    'word-diff-regex',
    'diff-algorithm',
    'stat-width',
    'stat-name-width',
    'stat-graph-width',
    'stat-count',
    'min-parents',
    'max-parents',
    'src-prefix',
    'dst-prefix',
    'line-prefix',
    'decorate-refs',
    'decorate-refs-exclude',
    'exclude',
    'glob',
    'inter-hunk-context',
    'since-as-filter',
    'grep-reflog',
    'anchored',
    'ignore-matching-lines',
    'rotate-to',
    'skip-to',
    'output-indicator-new',
    'output-indicator-old',
    'output-indicator-context',
    'color-moved-ws',
    'break-rewrites',
    'find-copies-harder',
    'expand-tabs',
    'show-linear-break',
  ],
  longOptional: [
    'pretty',
    'decorate',
    'stat',
    'branches',
    'tags',
    'remotes',
    'abbrev',
    'find-renames',
    'find-copies',
    'word-diff',
    'color',
    'color-moved',
    'relative',
    'dirstat',
    'notes',
    'show-notes',
    'color-words',
    'ignore-submodules',
    'find-object',
  ],
};

// Not -v/--verbose: it prints a diff, which can go through diff drivers.
const STATUS: OptionSpec = {
  flags: 'sbz',
  long: ['short', 'branch', 'long', 'show-stash', 'ahead-behind', 'no-ahead-behind', 'renames', 'no-renames', 'no-column', 'null'],
  longOptional: ['porcelain', 'untracked-files', 'ignored', 'find-renames', 'column', 'ignore-submodules'],
};

const BLAME: OptionSpec = {
  flags: 'bfnpcltsweCM',
  valued: 'L',
  long: [
    'root',
    'show-stats',
    'incremental',
    'show-name',
    'show-number',
    'porcelain',
    'line-porcelain',
    'show-email',
    'minimal',
    'color-lines',
    'color-by-age',
    'reverse',
    'first-parent',
    'no-textconv',
  ],
  longValued: ['date', 'ignore-rev', 'encoding'],
  longOptional: ['abbrev'],
};

const SHORTLOG: OptionSpec = {
  flags: 'nsec',
  numeric: true,
  long: ['numbered', 'summary', 'email', 'committer', 'all', 'no-merges', 'merges', 'first-parent', 'reverse'],
  longValued: ['group', 'format', 'since', 'after', 'until', 'before', 'author', 'max-count', 'grep'],
  longOptional: ['branches', 'tags', 'remotes'],
};

const DESCRIBE: OptionSpec = {
  long: ['tags', 'all', 'long', 'always', 'exact-match', 'contains', 'first-parent', 'debug'],
  longValued: ['match', 'exclude', 'candidates'],
  longOptional: ['abbrev', 'dirty', 'broken'],
};

const REV_PARSE: OptionSpec = {
  flags: 'q',
  long: [
    'show-toplevel',
    'is-inside-work-tree',
    'is-inside-git-dir',
    'is-bare-repository',
    'is-shallow-repository',
    'git-dir',
    'absolute-git-dir',
    'git-common-dir',
    'show-prefix',
    'show-cdup',
    'verify',
    'quiet',
    'symbolic',
    'symbolic-full-name',
    'all',
    'show-superproject-working-tree',
    'local-env-vars',
    'shared-index-path',
    'revs-only',
    'no-revs',
    'flags',
    'no-flags',
  ],
  longValued: ['git-path', 'since', 'after', 'until', 'before', 'default', 'path-format'],
  longOptional: ['abbrev-ref', 'short', 'branches', 'tags', 'remotes', 'show-object-format'],
};

const LS_FILES: OptionSpec = {
  flags: 'cdmoisukztvf',
  valued: 'x',
  long: [
    'cached',
    'deleted',
    'modified',
    'others',
    'ignored',
    'stage',
    'killed',
    'directory',
    'no-empty-directory',
    'unmerged',
    'resolve-undo',
    'exclude-standard',
    'full-name',
    'error-unmatch',
    'eol',
    'deduplicate',
    'sparse',
    'debug',
  ],
  longValued: ['exclude', 'with-tree', 'format'],
  longOptional: ['abbrev'],
};

const LS_TREE: OptionSpec = {
  flags: 'rdtlz',
  long: ['long', 'name-only', 'name-status', 'object-only', 'full-name', 'full-tree'],
  longValued: ['format'],
  longOptional: ['abbrev'],
};
const CAT_FILE: OptionSpec = { flags: 'tspe', long: ['allow-unknown-type', 'mailmap', 'use-mailmap', 'no-mailmap'] };
const MERGE_BASE: OptionSpec = { long: ['all', 'octopus', 'independent', 'is-ancestor', 'fork-point'] };

const GREP: OptionSpec = {
  flags: 'aiIvwcElLnhHoqzFPGWp',
  valued: 'ABCefm',
  numeric: true,
  long: [
    'cached',
    'no-index',
    'untracked',
    'no-exclude-standard',
    'exclude-standard',
    'text',
    'ignore-case',
    'word-regexp',
    'invert-match',
    'full-name',
    'extended-regexp',
    'basic-regexp',
    'perl-regexp',
    'fixed-strings',
    'line-number',
    'column',
    'files-with-matches',
    'name-only',
    'files-without-match',
    'null',
    'only-matching',
    'count',
    'break',
    'heading',
    'show-function',
    'function-context',
    'and',
    'or',
    'not',
    'all-match',
    'quiet',
    'no-textconv',
  ],
  longValued: ['max-depth', 'context', 'after-context', 'before-context', 'threads', 'max-count'],
  longOptional: ['color'],
};

const BRANCH: OptionSpec = {
  flags: 'arvlq',
  long: ['all', 'remotes', 'verbose', 'list', 'show-current', 'no-color', 'ignore-case', 'omit-empty', 'no-column', 'quiet'],
  longValued: ['contains', 'no-contains', 'merged', 'no-merged', 'sort', 'format', 'points-at'],
  longOptional: ['color', 'column', 'abbrev'],
};

const TAG: OptionSpec = {
  flags: 'l',
  long: ['list', 'ignore-case', 'omit-empty', 'no-column'],
  longValued: ['sort', 'contains', 'no-contains', 'merged', 'no-merged', 'points-at', 'format'],
  longOptional: ['color', 'column'],
};

const CONFIG: OptionSpec = {
  flags: 'lz',
  long: ['list', 'get', 'get-all', 'get-regexp', 'show-origin', 'show-scope', 'null', 'name-only', 'local', 'includes', 'no-includes', 'bool', 'int', 'path'],
  longValued: ['type', 'default'],
};

type Check = (scan: { operands: string[]; seen: string[] }) => string | undefined;

const listingOnly: Check = ({ operands, seen }) =>
  operands.length > 0 && !seen.includes('-l') && !seen.includes('--list')
    ? `"${operands[0]}" would create something (only listing forms are read-only)`
    : undefined;

const configReadOnly: Check = ({ operands, seen }) => {
  const actions = seen.filter((option) => ['-l', '--list', '--get', '--get-all', '--get-regexp'].includes(option));
  if (actions.length !== 1) return 'only one of --list, --get, --get-all or --get-regexp is read-only';
  const listing = actions[0] === '-l' || actions[0] === '--list';
  if (listing ? operands.length > 0 : operands.length < 1 || operands.length > 2) return 'the operands do not match a read-only form';
  return undefined;
};

const SUBCOMMANDS: Readonly<Record<string, { options: OptionSpec; check?: Check }>> = {
  status: { options: STATUS },
  log: { options: DIFF_AND_LOG },
  show: { options: DIFF_AND_LOG },
  diff: { options: DIFF_AND_LOG },
  blame: { options: BLAME },
  shortlog: { options: SHORTLOG },
  describe: { options: DESCRIBE },
  'rev-parse': { options: REV_PARSE },
  'ls-files': { options: LS_FILES },
  'ls-tree': { options: LS_TREE },
  'cat-file': { options: CAT_FILE },
  'merge-base': { options: MERGE_BASE },
  grep: { options: GREP },
  branch: { options: BRANCH, check: listingOnly },
  tag: { options: TAG, check: listingOnly },
  config: { options: CONFIG, check: configReadOnly },
};

/** Judges `git args…`. */
export function judgeGit(args: readonly string[]): SpecJudgement {
  const refuse = (reason: string): SpecJudgement => ({ safe: false, reason: `git: ${reason}` });
  const [sub, ...rest] = args;
  if (sub === undefined) return refuse('no sub-command');
  if (sub.startsWith('-')) {
    if (sub === '--version' && rest.length === 0) return { safe: true, printsOnly: true };
    return refuse(`option "${sub}" before the sub-command (global options such as -c, -C, --git-dir, --exec-path or -p can change what git runs)`);
  }
  if (sub === 'version' && rest.length === 0) return { safe: true, printsOnly: true };
  if (sub === 'remote') {
    const ok =
      rest.length === 0 ||
      (rest.length === 1 && ['-v', '--verbose'].includes(rest[0])) ||
      (rest[0] === 'get-url' && scanOptions(rest.slice(1), { long: ['push', 'all'] }).ok && rest.length <= 4);
    return ok ? { safe: true, printsOnly: false } : refuse('only "git remote", "git remote -v" and "git remote get-url" are read-only');
  }
  let spec = Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
  let options = rest;
  if (sub === 'stash') {
    if (rest[0] !== 'list') return refuse('only "git stash list" is read-only');
    spec = { options: DIFF_AND_LOG };
    options = rest.slice(1);
  }
  if (!spec) return refuse(`"${sub}" is not a known read-only sub-command`);
  const scan = scanOptions(options, spec.options);
  if (!scan.ok) return refuse(`${sub}: ${scan.reason}`);
  const problem = spec.check?.(scan);
  return problem ? refuse(`${sub}: ${problem}`) : { safe: true, printsOnly: false };
}
