import type { SpecJudgement } from './safeCommands';

// `find` has an expression grammar instead of options, so it gets its own allowlist: start points,
// then tests, operators and printing actions. Not listed (so not auto-approved): -exec, -execdir,
// -ok, -okdir, -delete (run or delete), -fprint, -fprint0, -fprintf, -fls (write files), -L,
// -follow, -H (follow symbolic links), -files0-from (start points from a file), -D and -O.

const OPERATORS = new Set(['(', ')', '!', ',', '-not', '-a', '-and', '-o', '-or']);
const NO_ARGUMENT = new Set([
  '-empty',
  '-executable',
  '-readable',
  '-writable',
  '-nogroup',
  '-nouser',
  '-true',
  '-false',
  '-print',
  '-print0',
  '-ls',
  '-prune',
  '-quit',
  '-depth',
  '-d',
  '-xdev',
  '-mount',
  '-noleaf',
  '-daystart',
  '-ignore_readdir_race',
  '-noignore_readdir_race',
]);
const ONE_ARGUMENT = new Set([
  '-name',
  '-iname',
  '-path',
  '-ipath',
  '-wholename',
  '-iwholename',
  '-regex',
  '-iregex',
  '-lname',
  '-ilname',
  '-type',
  '-xtype',
  '-size',
  '-mtime',
  '-mmin',
  '-atime',
  '-amin',
  '-ctime',
  '-cmin',
  '-newer',
  '-anewer',
  '-cnewer',
  '-samefile',
  '-perm',
  '-user',
  '-group',
  '-uid',
  '-gid',
  '-links',
  '-inum',
  '-maxdepth',
  '-mindepth',
  '-regextype',
  '-printf',
  '-fstype',
  '-used',
]);
/** -newerXY, e.g. -newermt DATE. */
const NEWER_XY = /^-newer[aBcmt][aBcmt]$/;

export function judgeFind(args: readonly string[]): SpecJudgement {
  let i = 0;
  while (args[i] === '-P') i++;
  // Start points: every word before the expression.
  while (i < args.length && !args[i].startsWith('-') && !OPERATORS.has(args[i])) i++;
  for (; i < args.length; i++) {
    const word = args[i];
    if (OPERATORS.has(word) || NO_ARGUMENT.has(word)) continue;
    if (ONE_ARGUMENT.has(word) || NEWER_XY.test(word)) {
      if (i + 1 >= args.length) return { safe: false, reason: `find: "${word}" has no value` };
      i++;
      continue;
    }
    return { safe: false, reason: `find: "${word}" is not on the list of known read-only find expressions` };
  }
  return { safe: true, printsOnly: false };
}
