// VS Code's own JSON files (`.vscode/mcp.json` among them) are JSONC: comments and trailing commas
// are allowed. This turns such text into plain JSON, keeping every string as written and every
// line where it was (so JSON.parse's positions still point at the right line).

/** `text` with `//` and `/* … *\/` comments blanked and trailing commas before `}` or `]` removed. */
export function stripJsonComments(text: string): string {
  let out = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i];
    if (ch === '"') {
      const start = i++;
      while (i < n && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      out += text.slice(start, ++i);
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const comment = text.slice(i, end === -1 ? n : end + 2);
      out += comment.replace(/[^\n]/g, ' ');
      i += comment.length;
    } else if (ch === ',') {
      let j = i + 1;
      // A comma followed only by whitespace or comments and then a closing bracket is dropped.
      for (;;) {
        while (j < n && /\s/.test(text[j])) j++;
        if (text[j] === '/' && text[j + 1] === '/') while (j < n && text[j] !== '\n') j++;
        else if (text[j] === '/' && text[j + 1] === '*') j = text.indexOf('*/', j + 2) === -1 ? n : text.indexOf('*/', j + 2) + 2;
        else break;
      }
      out += text[j] === '}' || text[j] === ']' ? ' ' : ',';
      i++;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}
