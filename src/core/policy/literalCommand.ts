// The only command lines Cortex may run without asking a person: ones made of literal words. The
// grammar is deliberately tiny so that no shell (dash, bash, zsh) could read the text differently
// from us, and an approved command is run from the words below without any shell at all:
//
//   words      separated by ASCII spaces and tabs only
//   plain      A-Z a-z 0-9 and  _ - . , / : @ % + = ^  plus non-ASCII letters, digits, marks,
//              punctuation and symbols
//   '…'        any of those and  space, tab, $ ` \ " * ? [ ] { } ( ) < > | & ; # ! ~  (no ')
//   "…"        the same, except $ ` \ and " itself (so nothing inside can expand)
//   \c         one escaped character outside quotes (c printable ASCII, not a newline)
//   ~          inside a word only (HEAD~1), not first nor after = or :
//
// Anything else is not literal: $ and backticks (expansion), unquoted * ? [ ] { } (globs, braces),
// ~ at a word's start or after = or : (home folder), ; & | ( ) < > (operators, redirections),
// # (comments), ! (negation), a newline or any other control character, non-ASCII spaces and line
// separators (U+00A0, U+2028…), invisible format characters (bidi overrides, zero-width), and an
// assignment word (`X=1 cmd`) first.

export type LiteralParse = { ok: true; words: string[] } | { ok: false; reason: string };

const PLAIN = /^[A-Za-z0-9_\-.,/:@%+=^]$/;
/** Printable ASCII that quotes may hold (everything from space to ~). */
const QUOTABLE_ASCII = /^[\x20-\x7e]$/;
/** Visible non-ASCII: letters, marks, numbers, punctuation, symbols (no separators, controls, format characters). */
const VISIBLE_NON_ASCII = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
const DOUBLE_QUOTE_FORBIDDEN = new Set(['$', '`', '\\', '"']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

const DESCRIBED: Record<string, string> = {
  $: 'a "$" expansion',
  '`': 'a backtick command substitution',
  '*': 'an unquoted glob "*"',
  '?': 'an unquoted glob "?"',
  '[': 'an unquoted glob "["',
  ']': 'an unquoted "]"',
  '{': 'an unquoted brace "{"',
  '}': 'an unquoted brace "}"',
  '~': 'an unquoted tilde "~"',
  ';': 'the operator ";"',
  '&': 'the operator "&"',
  '|': 'the operator "|"',
  '(': 'the operator "("',
  ')': 'the operator ")"',
  '<': 'a redirection "<"',
  '>': 'a redirection ">"',
  '#': 'a comment "#"',
  '!': 'an unquoted "!"',
  '\n': 'a newline',
};

function describeChar(char: string): string {
  if (DESCRIBED[char]) return DESCRIBED[char];
  const code = char.codePointAt(0)!;
  return `the character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

function isVisible(char: string): boolean {
  return QUOTABLE_ASCII.test(char) || (char.codePointAt(0)! > 0x7f && VISIBLE_NON_ASCII.test(char));
}

/**
 * Splits `command` into literal words, or says why it is not made of literal words (then it can
 * only run through `/bin/sh -c` after a person approved the exact text).
 */
export function parseLiteralCommand(command: string): LiteralParse {
  const words: string[] = [];
  const chars = Array.from(command);
  const fail = (reason: string): LiteralParse => ({ ok: false, reason });
  let i = 0;
  while (i < chars.length) {
    const c = chars[i];
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    let word = '';
    while (i < chars.length && chars[i] !== ' ' && chars[i] !== '\t') {
      const ch = chars[i];
      if (ch === "'") {
        const end = chars.indexOf("'", i + 1);
        if (end < 0) return fail('an unterminated single quote');
        for (let j = i + 1; j < end; j++) {
          if (!isVisible(chars[j]) && chars[j] !== '\t') return fail(`${describeChar(chars[j])} inside quotes`);
          word += chars[j];
        }
        i = end + 1;
      } else if (ch === '"') {
        let j = i + 1;
        for (; j < chars.length && chars[j] !== '"'; j++) {
          const q = chars[j];
          if (DOUBLE_QUOTE_FORBIDDEN.has(q)) return fail(`${q === '\\' ? 'a backslash' : describeChar(q)} inside double quotes`);
          if (!isVisible(q) && q !== '\t') return fail(`${describeChar(q)} inside quotes`);
          word += q;
        }
        if (j >= chars.length) return fail('an unterminated double quote');
        i = j + 1;
      } else if (ch === '\\') {
        const next = chars[i + 1];
        if (next === undefined) return fail('a backslash at the end');
        if (!QUOTABLE_ASCII.test(next)) return fail(`a backslash before ${describeChar(next)}`);
        word += next;
        i += 2;
      } else if (ch === '~' && word !== '' && !/[=:]$/.test(word) && chars[i - 1] !== "'" && chars[i - 1] !== '"') {
        // Inside a word (HEAD~1) no shell expands it; at the start or after = or : it names a home folder.
        word += ch;
        i++;
      } else if (PLAIN.test(ch) || (ch.codePointAt(0)! > 0x7f && VISIBLE_NON_ASCII.test(ch))) {
        word += ch;
        i++;
      } else {
        return fail(describeChar(ch));
      }
    }
    words.push(word);
  }
  if (words.length === 0) return fail('the command is empty');
  if (ASSIGNMENT.test(command.trimStart())) return fail('a variable assignment before the command');
  if (words[0] === '') return fail('an empty command name');
  return { ok: true, words };
}

/** Shows words the way a person can copy them back into a shell: quoted when not plain. */
export function formatWords(words: readonly string[]): string {
  return words.map((word) => (word !== '' && /^[A-Za-z0-9_\-.,/:@%+=^]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}
