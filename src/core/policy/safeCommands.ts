import { scanOptions, type OptionSpec } from './optionScanner';

// The read-only commands Cortex runs without asking, each with the options it accepts. An
// allowlist, not a blocklist: an option that is not listed (a new one, a misspelt one, an
// abbreviation) makes the command need a person's approval. Left out on purpose, because they
// write, run programs, follow symbolic links while recursing, or read a list of file names from a
// file: find -exec/-execdir/-ok/-okdir/-delete/-fprint*/-fls/-L/-follow, sort -o/-T/
// --compress-program/--files0-from, wc/du --files0-from, tail -f, ls/du -L, grep -R, rg --pre/-z/-L,
// tree -o/-R/-l, diff -r, file -C/-z/-m/-f, date -s/-f and date operands that set the clock.
// Commands that exist only as shell builtins (cd, type, [[) are not listed: an approved command
// runs without a shell.

export interface SafeCommandSpec {
  options?: OptionSpec;
  /** Every word is an operand (no options), e.g. `test`. */
  operandsOnly?: boolean;
  /** Checks the operands; return a reason to refuse them. */
  checkOperands?: (operands: string[]) => string | undefined;
  /** Only prints its arguments (never opens them as files), so the path checks do not apply. */
  printsOnly?: boolean;
}

const numberValue = (option: string, value: string) => (/^[+-]?\d+[A-Za-z]{0,3}$/.test(value) ? undefined : `option "${option}" needs a number`);

const HEAD_TAIL: OptionSpec = {
  flags: 'qvz',
  valued: 'nc',
  numeric: true,
  long: ['quiet', 'silent', 'verbose', 'zero-terminated'],
  longValued: ['lines', 'bytes'],
  checkValue: numberValue,
};

const GREP: OptionSpec = {
  flags: 'abcEFGhHiIlLnoPqrsTUvwxyzZ',
  valued: 'ABCdDefm',
  numeric: true,
  long: [
    'extended-regexp',
    'fixed-strings',
    'basic-regexp',
    'perl-regexp',
    'ignore-case',
    'no-ignore-case',
    'word-regexp',
    'line-regexp',
    'no-messages',
    'invert-match',
    'version',
    'help',
    'byte-offset',
    'line-number',
    'no-line-number',
    'line-buffered',
    'with-filename',
    'no-filename',
    'only-matching',
    'quiet',
    'silent',
    'text',
    'recursive',
    'files-without-match',
    'files-with-matches',
    'count',
    'initial-tab',
    'null',
    'null-data',
  ],
  longValued: [
    'regexp',
    'file',
    'max-count',
    'label',
    'binary-files',
    'devices',
    'directories',
    'exclude',
    'exclude-from',
    'exclude-dir',
    'include',
    'after-context',
    'before-context',
    'context',
    'group-separator',
  ],
  longOptional: ['color', 'colour'],
  checkValue: (option, value) =>
    (option === '-d' || option === '--directories') && !['read', 'skip', 'recurse'].includes(value)
      ? `"${option} ${value}" is not read, skip or recurse`
      : undefined,
};

/** Operand patterns for commands whose operands are not file names. */
const ONLY = (pattern: RegExp, what: string) => (operands: string[]) => {
  const bad = operands.find((operand) => !pattern.test(operand));
  return bad === undefined ? undefined : `"${bad}" is not ${what}`;
};

const NONE = (operands: string[]) => (operands.length > 0 ? `"${operands[0]}": no operands are expected` : undefined);

export const SAFE_COMMANDS: Readonly<Record<string, SafeCommandSpec>> = {
  echo: { printsOnly: true, operandsOnly: true },
  printf: { printsOnly: true, operandsOnly: true },
  true: { printsOnly: true, operandsOnly: true },
  false: { printsOnly: true, operandsOnly: true },
  pwd: { printsOnly: true, options: { flags: 'LP' }, checkOperands: NONE },
  whoami: { printsOnly: true, options: {}, checkOperands: NONE },
  id: { printsOnly: true, options: { flags: 'gGnruzZa' } },
  uname: {
    printsOnly: true,
    options: {
      flags: 'asnrvmpio',
      long: ['all', 'kernel-name', 'nodename', 'kernel-release', 'kernel-version', 'machine', 'processor', 'hardware-platform', 'operating-system'],
    },
  },
  sleep: { printsOnly: true, operandsOnly: true, checkOperands: ONLY(/^\d{1,6}(?:\.\d{1,6})?[smhd]?$/, 'a duration') },
  basename: { printsOnly: true, options: { flags: 'az', valued: 's', long: ['multiple', 'zero'], longValued: ['suffix'] } },
  dirname: { printsOnly: true, options: { flags: 'z', long: ['zero'] } },
  which: { printsOnly: true, options: { flags: 'as' } },
  test: { operandsOnly: true },
  ls: {
    options: {
      flags: 'aAbBcCdfFgGhiklmnNopqQrRsStuUvxXZ1',
      valued: 'ITw',
      long: [
        'all',
        'almost-all',
        'author',
        'escape',
        'ignore-backups',
        'directory',
        'dired',
        'classify',
        'file-type',
        'full-time',
        'group-directories-first',
        'no-group',
        'human-readable',
        'si',
        'inode',
        'kibibytes',
        'literal',
        'numeric-uid-gid',
        'hide-control-chars',
        'show-control-chars',
        'quote-name',
        'reverse',
        'recursive',
        'size',
        'context',
        'zero',
      ],
      longValued: ['block-size', 'format', 'hide', 'ignore', 'indicator-style', 'quoting-style', 'sort', 'time', 'time-style', 'tabsize', 'width'],
      longOptional: ['color', 'colour', 'hyperlink'],
    },
  },
  cat: { options: { flags: 'AbeEnstTuv', long: ['show-all', 'number-nonblank', 'show-ends', 'number', 'squeeze-blank', 'show-tabs', 'show-nonprinting'] } },
  head: { options: HEAD_TAIL },
  tail: { options: HEAD_TAIL },
  wc: { options: { flags: 'clmwL', long: ['bytes', 'chars', 'lines', 'words', 'max-line-length'], longValued: ['total'] } },
  nl: { options: { flags: 'p', valued: 'bdfhilnsvw' } },
  tr: { printsOnly: true, options: { flags: 'cCdst', long: ['complement', 'delete', 'squeeze-repeats', 'truncate-set1'] } },
  cut: {
    options: {
      flags: 'nsz',
      valued: 'bcdf',
      long: ['complement', 'only-delimited', 'zero-terminated'],
      longValued: ['bytes', 'characters', 'delimiter', 'fields', 'output-delimiter'],
    },
  },
  cmp: { options: { flags: 'bls', valued: 'in', long: ['print-bytes', 'verbose', 'quiet', 'silent'], longValued: ['ignore-initial', 'bytes'] } },
  diff: {
    options: {
      flags: 'abBdEiNpqstTuwy',
      valued: 'CUWI',
      long: [
        'brief',
        'report-identical-files',
        'ignore-case',
        'ignore-tab-expansion',
        'ignore-trailing-space',
        'ignore-space-change',
        'ignore-all-space',
        'ignore-blank-lines',
        'text',
        'strip-trailing-cr',
        'new-file',
        'unidirectional-new-file',
        'side-by-side',
        'left-column',
        'suppress-common-lines',
        'expand-tabs',
        'initial-tab',
        'minimal',
        'speed-large-files',
        'show-c-function',
        'suppress-blank-empty',
      ],
      longValued: ['width', 'ignore-matching-lines', 'label', 'tabsize', 'show-function-line', 'horizon-lines', 'palette'],
      longOptional: ['unified', 'context', 'color'],
    },
  },
  comm: { options: { flags: '123z', long: ['check-order', 'nocheck-order', 'zero-terminated', 'total'], longValued: ['output-delimiter'] } },
  realpath: {
    options: {
      flags: 'eELmPqsz',
      long: ['canonicalize-existing', 'canonicalize-missing', 'logical', 'physical', 'quiet', 'strip', 'no-symlinks', 'zero'],
      longValued: ['relative-to', 'relative-base'],
    },
  },
  readlink: {
    options: { flags: 'efmnqsvz', long: ['canonicalize', 'canonicalize-existing', 'canonicalize-missing', 'no-newline', 'quiet', 'silent', 'verbose', 'zero'] },
  },
  stat: { options: { flags: 'Lft', valued: 'c', long: ['dereference', 'file-system', 'terse'], longValued: ['format', 'printf', 'cached'] } },
  du: {
    options: {
      flags: 'abchkmsSx0',
      valued: 'dBt',
      long: [
        'all',
        'apparent-size',
        'bytes',
        'total',
        'human-readable',
        'si',
        'summarize',
        'separate-dirs',
        'one-file-system',
        'null',
        'count-links',
        'inodes',
      ],
      longValued: ['max-depth', 'block-size', 'threshold', 'exclude'],
    },
  },
  df: {
    options: {
      flags: 'ahHiklPT',
      valued: 'Btx',
      long: ['all', 'human-readable', 'si', 'inodes', 'local', 'portability', 'print-type', 'total', 'sync', 'no-sync'],
      longValued: ['block-size', 'type', 'exclude-type'],
      longOptional: ['output'],
    },
  },
  date: {
    options: {
      flags: 'Ru',
      valued: 'dr',
      long: ['utc', 'universal', 'rfc-email', 'debug'],
      longValued: ['date', 'reference', 'rfc-3339'],
      longOptional: ['iso-8601'],
    },
    // An operand that is not +FORMAT sets the clock.
    checkOperands: ONLY(/^\+/, 'a +FORMAT'),
  },
  grep: { options: GREP },
  egrep: { options: GREP },
  fgrep: { options: GREP },
  rg: {
    options: {
      flags: 'iISswxFnNclvoUu0.qHhpab',
      valued: 'eEgtTmABCMrjf',
      numeric: false,
      long: [
        'files',
        'hidden',
        'no-ignore',
        'no-ignore-vcs',
        'no-ignore-parent',
        'count',
        'count-matches',
        'json',
        'no-heading',
        'heading',
        'vimgrep',
        'line-number',
        'no-line-number',
        'with-filename',
        'no-filename',
        'ignore-case',
        'smart-case',
        'case-sensitive',
        'word-regexp',
        'line-regexp',
        'fixed-strings',
        'invert-match',
        'only-matching',
        'multiline',
        'multiline-dotall',
        'files-with-matches',
        'files-without-match',
        'stats',
        'column',
        'no-messages',
        'null',
        'text',
        'pcre2',
        'trim',
        'passthru',
        'byte-offset',
        'unrestricted',
        'type-list',
        'version',
        'help',
      ],
      longValued: [
        'glob',
        'iglob',
        'type',
        'type-not',
        'max-count',
        'max-depth',
        'context',
        'after-context',
        'before-context',
        'regexp',
        'max-filesize',
        'replace',
        'sort',
        'sortr',
        'color',
        'colors',
        'encoding',
        'max-columns',
        'threads',
        'field-match-separator',
        'field-context-separator',
        'context-separator',
        'path-separator',
        'engine',
        'file',
      ],
    },
  },
  sort: {
    options: {
      flags: 'bcCdfghiMnrRsuVz',
      valued: 'ktS',
      long: [
        'ignore-leading-blanks',
        'dictionary-order',
        'ignore-case',
        'general-numeric-sort',
        'ignore-nonprinting',
        'month-sort',
        'human-numeric-sort',
        'numeric-sort',
        'random-sort',
        'reverse',
        'version-sort',
        'stable',
        'unique',
        'zero-terminated',
        'debug',
      ],
      longValued: ['key', 'field-separator', 'buffer-size', 'sort', 'parallel'],
      longOptional: ['check'],
    },
  },
  tree: {
    options: {
      flags: 'adfipsughDFqNQrtvUcCnAJXx',
      valued: 'LIP',
      long: ['noreport', 'dirsfirst', 'gitignore', 'prune', 'matchdirs', 'ignore-case', 'du', 'si'],
      longValued: ['filelimit', 'charset', 'sort'],
    },
  },
  column: {
    options: {
      flags: 'tx',
      valued: 'sco',
      long: ['table', 'fillrows'],
      longValued: ['separator', 'output-separator', 'columns', 'output-width'],
      // A huge width makes column allocate that much memory.
      checkValue: (option, value) =>
        ['-c', '--columns', '--output-width'].includes(option) && !/^\d{1,3}$/.test(value) ? `"${option} ${value}" is not a width below 1000` : undefined,
    },
  },
  file: {
    options: {
      flags: 'bhiLNprsE0kS',
      long: [
        'brief',
        'mime',
        'mime-type',
        'mime-encoding',
        'dereference',
        'no-dereference',
        'no-pad',
        'preserve-date',
        'raw',
        'special-files',
        'keep-going',
        'print0',
      ],
      longValued: ['separator'],
    },
  },
};

/**
 * Programs asked only for their version: each name with the exact flags that print it. Left out:
 * package managers and toolchain launchers that read workspace files first and can run code from
 * them (yarn `yarnPath`, rustup `rust-toolchain.toml`, go `toolchain`, npm/pnpm/bun/cargo/dotnet).
 */
export const VERSION_QUERIES: Readonly<Record<string, readonly string[]>> = {
  node: ['--version', '-v'],
  python: ['--version', '-V'],
  python3: ['--version', '-V'],
  ruby: ['--version'],
  java: ['-version', '--version'],
  javac: ['-version', '--version'],
  tsc: ['--version', '-v'],
  gcc: ['--version'],
  'g++': ['--version'],
  clang: ['--version'],
  make: ['--version', '-v'],
  cmake: ['--version'],
  pip: ['--version', '-V'],
  pip3: ['--version', '-V'],
  deno: ['--version', '-V'],
};

export type SpecJudgement = { safe: true; printsOnly: boolean } | { safe: false; reason: string };

/** Judges `program args…` against SAFE_COMMANDS (not find or git, which have their own grammar). */
export function judgeSpecCommand(program: string, args: readonly string[]): SpecJudgement | undefined {
  if (!Object.hasOwn(SAFE_COMMANDS, program)) return undefined;
  const spec = SAFE_COMMANDS[program];
  let operands: string[];
  if (spec.operandsOnly) operands = [...args];
  else {
    const scan = scanOptions(args, spec.options ?? {});
    if (!scan.ok) return { safe: false, reason: `${program}: ${scan.reason}` };
    operands = scan.operands;
  }
  const problem = spec.checkOperands?.(operands);
  if (problem) return { safe: false, reason: `${program}: ${problem}` };
  return { safe: true, printsOnly: spec.printsOnly === true };
}
