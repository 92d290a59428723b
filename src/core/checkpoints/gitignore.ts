import { globToRegExp } from '../tools/workspace/globPattern';

// The rules of .gitignore files, enough to skip what a repository ignores when looking for what a
// command changed: comments and blank lines, `!` to re-include, a trailing `/` for folders only,
// a pattern with a `/` anchored at its file's folder (else it matches a name at any depth), `*`,
// `?`, `[…]` and `**`. The last matching line wins, deeper files after shallower ones; a file in an
// ignored folder is never looked at (the walk does not enter it), as in git.

interface IgnoreRule {
  regex: RegExp;
  negate: boolean;
  directoryOnly: boolean;
  /** Matched against the path from the rule file's folder (else against the name). */
  anchored: boolean;
}

/** The rules of one .gitignore file, for paths below `base` ('' for the workspace root). */
export interface IgnoreFile {
  base: string;
  rules: IgnoreRule[];
}

/** Parses the text of a .gitignore file found in folder `base` (relative, '/'-separated). */
export function parseIgnoreFile(base: string, text: string): IgnoreFile {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.replace(/(?<!\\)\s+$/, '');
    if (line === '' || line.startsWith('#')) continue;
    let negate = false;
    if (line.startsWith('!')) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) line = line.slice(1);
    const directoryOnly = line.endsWith('/');
    if (directoryOnly) line = line.replace(/\/+$/, '');
    if (line === '') continue;
    const anchored = line.includes('/');
    const pattern = line.replace(/^\//, '');
    rules.push({ regex: globToRegExp(pattern), negate, directoryOnly, anchored });
  }
  return { base, rules };
}

/** Whether `relative` (from the workspace root) is ignored by `files` (root first, deeper after). */
export function isIgnored(files: readonly IgnoreFile[], relative: string, isDirectory: boolean): boolean {
  let ignored = false;
  const name = relative.slice(relative.lastIndexOf('/') + 1);
  for (const file of files) {
    if (file.base !== '' && !relative.startsWith(`${file.base}/`)) continue;
    const local = file.base === '' ? relative : relative.slice(file.base.length + 1);
    for (const rule of file.rules) {
      if (rule.directoryOnly && !isDirectory) continue;
      if (rule.regex.test(rule.anchored ? local : name)) ignored = !rule.negate;
    }
  }
  return ignored;
}
