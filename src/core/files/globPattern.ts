// Glob patterns for find_files and search_text, compiled to regular expressions (no dependency):
// `**` any number of folders, `*` and `?` within one name, `[abc]`/`[!abc]` classes, `{a,b}`
// alternatives. A pattern without '/' matches a file name at any depth ("*.ts").

function escapeRegExp(char: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(char) ? `\\${char}` : char;
}

/** Compiles a glob to a RegExp matched against a '/'-separated relative path. */
export function globToRegExp(pattern: string): RegExp {
  let source = '';
  let braceDepth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '*') {
      if (pattern[i + 1] === '*') {
        const atSegmentStart = i === 0 || pattern[i - 1] === '/';
        const next = pattern[i + 2];
        i++;
        if (atSegmentStart && next === '/') {
          i++;
          source += '(?:[^/]*/)*'; // "**/" = zero or more folders
        } else {
          source += '.*';
        }
      } else {
        source += '[^/]*';
      }
    } else if (char === '?') {
      source += '[^/]';
    } else if (char === '[') {
      const close = pattern.indexOf(']', i + 1);
      if (close === -1) {
        source += '\\[';
      } else {
        let body = pattern.slice(i + 1, close);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        source += `[${body.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else if (char === '{') {
      braceDepth++;
      source += '(?:';
    } else if (char === '}' && braceDepth > 0) {
      braceDepth--;
      source += ')';
    } else if (char === ',' && braceDepth > 0) {
      source += '|';
    } else {
      source += escapeRegExp(char);
    }
  }
  while (braceDepth-- > 0) source += ')';
  return new RegExp(`^${source}$`);
}

/** A matcher for relative paths; patterns without '/' test only the file name. */
export function globMatcher(pattern: string): (relativePath: string) => boolean {
  const trimmed = pattern.replace(/^\.\//, '');
  const regex = globToRegExp(trimmed);
  if (trimmed.includes('/')) return (relativePath) => regex.test(relativePath);
  return (relativePath) => regex.test(relativePath.slice(relativePath.lastIndexOf('/') + 1));
}
