// The command-line reader for the deny rules. It reads a line the way dash (`/bin/sh` on Debian and
// Ubuntu, which runs every command with shell syntax) reads it, and can also read it the way bash
// does (`/bin/sh` on macOS and some Linux systems), so the rules can check both readings. It does
// not run or expand anything: it finds every simple command that *would* run — including those
// hidden in $(…), `…`, $((…)) and unquoted here-documents (and, read as bash, <(…) and >(…)) — and
// every redirection, so a denied command cannot hide inside a compound line. When in doubt it
// reports an error or an extra segment, never fewer segments: an extra segment only ever makes the
// verdict stricter. test/integration/shellReading.test.ts runs generated lines through the real
// /bin/sh and fails on any difference. It never decides that a command may run without a person:
// only literal words (literalCommand.ts) are auto-approved.

/** Which shell's grammar to read: dash (POSIX sh) or bash. */
export type ShellDialect = 'dash' | 'bash';

/** One shell word as the policy sees it. */
export interface CommandWord {
  /** Quotes and escapes removed; expansions ($x, $(…), globs, braces) kept as written. */
  value: string;
  /** Exactly as written in the command line. */
  raw: string;
  /** Contains an expansion (parameter, command/process substitution, glob, brace, $'…'): its runtime value is not `value`. */
  expands: boolean;
  /** Starts with an expansion, so at run time it could become anything, an option included. */
  leadingExpansion: boolean;
}

/** A redirection such as `> out.txt`, `2>&1`, `<<EOF`. */
export interface Redirection {
  /** Explicit file descriptor before the operator (`2` in `2>`), or ''. */
  fd: string;
  operator: string;
  /** Target with quotes removed (a file, an fd number, `-`, or a here-document delimiter). */
  target: string;
  /** The redirection exactly as written. */
  text: string;
}

/** One simple command: the unit that policy rules are matched against. */
export interface CommandSegment {
  /** The command as written, from its first to its last token (comments excluded). */
  text: string;
  words: CommandWord[];
  redirections: Redirection[];
  /** True when the segment runs inside a substitution ($(…), `…`, <(…), >(…)) or a here-document. */
  nested: boolean;
}

export interface ParsedCommandLine {
  /** Every simple command, outer ones before the substitutions they contain. */
  segments: CommandSegment[];
  /** Control operators in order of appearance: ; && || | |& & ;; newline ("\n"), ( and ). */
  operators: string[];
  /** Bodies of command and process substitutions, in order of appearance. */
  substitutions: string[];
  /** Every redirection, nested ones included. */
  redirections: Redirection[];
  /** Syntax the parser could not make sense of (unterminated quote, missing target...). */
  errors: string[];
}

const MAX_DEPTH = 32;
/** Redirection operators, longest first. `&>`, `&>>` and `<<<` are bash only: dash reads `a &> f` as `a &` then `> f`. */
const REDIRECTIONS: Record<ShellDialect, string[]> = {
  dash: ['<<-', '<<', '<>', '<&', '>>', '>&', '>|', '<', '>'],
  bash: ['&>>', '&>', '<<<', '<<-', '<<', '<>', '<&', '>>', '>&', '>|', '<', '>'],
};
const CONTROL_OPERATORS: Record<ShellDialect, string[]> = {
  dash: ['&&', '||', ';;', ';', '|', '&'],
  bash: ['&&', '||', '|&', ';;', ';&', ';', '|', '&'],
};
const WORD_END = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')']);
const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_]/;
const SPECIAL_PARAMETER = /[0-9@*#?$!-]/;

interface Output {
  operators: string[];
  substitutions: string[];
  redirections: Redirection[];
  errors: string[];
}

interface SegmentBuilder {
  start: number;
  end: number;
  words: CommandWord[];
  redirections: Redirection[];
  inner: CommandSegment[];
}

interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
  expand: boolean;
}

class Parser {
  private pos = 0;
  private heredocs: PendingHeredoc[] = [];
  /** Set when parseList(true) met its closing `)`. */
  private closed = false;
  private bracketScan = { until: -1, found: false };
  private readonly bash: boolean;

  constructor(
    private readonly src: string,
    private readonly out: Output,
    private readonly depth: number,
    private readonly nested: boolean,
    private readonly dialect: ShellDialect,
  ) {
    this.bash = dialect === 'bash';
  }

  /** Parses a command list until the end of input, or until the `)` closing a $( / <( / >( when `closing`. */
  parseList(closing: boolean): CommandSegment[] {
    const { src } = this;
    const result: CommandSegment[] = [];
    let seg = this.newSegment();
    let parens = 0;
    const finish = () => {
      if (seg.words.length > 0 || seg.redirections.length > 0) {
        result.push({ text: src.slice(seg.start, seg.end), words: seg.words, redirections: seg.redirections, nested: this.nested });
      }
      result.push(...seg.inner);
      seg = this.newSegment();
    };
    // A control operator needs a command before it (`; ;`, `;&` and a line starting with `;` are syntax errors).
    let afterOperator = true;
    const operator = (op: string) => {
      if (afterOperator && seg.words.length === 0 && seg.redirections.length === 0 && op !== '\n' && op !== '(' && op !== ')')
        this.error(`"${op}" has no command before it`);
      if (op === ';;' || op === ';&') this.error(`"${op}" outside a case statement`);
      finish();
      this.out.operators.push(op);
      afterOperator = op !== ')';
    };

    for (;;) {
      this.pos = this.skipContinuations(this.pos);
      if (this.pos >= src.length) break;
      const c = src[this.pos];
      const next = this.peek(1);
      if (c === ' ' || c === '\t') {
        this.pos++;
      } else if (c === '\n') {
        operator('\n');
        this.pos++;
        result.push(...this.readHeredocBodies());
      } else if (c === '#') {
        const newline = src.indexOf('\n', this.pos);
        this.pos = newline < 0 ? src.length : newline; // a comment runs nothing
      } else if (c === ')') {
        this.pos++;
        if (parens > 0) {
          parens--;
          operator(')');
        } else if (closing) {
          finish();
          this.closed = true;
          return result;
        } else {
          this.error('unexpected ")"');
          operator(')');
        }
      } else if (c === '(') {
        this.pos++;
        parens++;
        operator('(');
      } else if (c === ';' || c === '|' || (c === '&' && !(this.bash && next === '>'))) {
        operator(this.readControlOperator());
      } else if ((c === '<' || c === '>' || c === '&') && !(this.bash && next === '(')) {
        this.readRedirection(seg, '', this.pos);
      } else {
        const start = this.pos;
        const word = this.readWord(seg.inner);
        const after = this.peek(0);
        if (/^\d+$/.test(word.raw) && (after === '<' || after === '>') && !(this.bash && this.peek(1) === '(')) {
          this.readRedirection(seg, word.raw, start); // `2>`: the digits are the fd, not an argument
        } else {
          this.extend(seg, start);
          seg.words.push(word);
        }
      }
    }
    if (closing) this.error('unterminated substitution: missing ")"');
    if (parens > 0) this.error('unbalanced "(": missing ")"');
    finish();
    if (this.heredocs.length > 0) {
      this.error(`unterminated here-document: missing "${this.heredocs[0].delimiter}" line`);
      this.heredocs.length = 0;
    }
    return result;
  }

  /** Scans text where only expansions matter (an unquoted here-document body). */
  scanExpansions(): CommandSegment[] {
    const inner: CommandSegment[] = [];
    const ignore = () => {};
    while (this.pos < this.src.length) {
      const c = this.src[this.pos];
      if (c === '\\') this.pos += 2;
      else if (c === '$') this.readDollar(inner, ignore, true);
      else if (c === '`') this.readBackticks(inner);
      else this.pos++;
    }
    return inner;
  }

  /** Past any backslash-newline pairs at `at`: dash and bash drop them everywhere but in single quotes, comments and here-document bodies. */
  private skipContinuations(at: number): number {
    while (this.src[at] === '\\' && this.src[at + 1] === '\n') at += 2;
    return at;
  }

  /** The character `ahead` characters after the current one, line continuations skipped. */
  private peek(ahead: number): string | undefined {
    let at = this.skipContinuations(this.pos);
    for (let i = 0; i < ahead; i++) at = this.skipContinuations(at + 1);
    return this.src[at];
  }

  /** The position after `text` when it starts at the current one (line continuations allowed inside), or -1. */
  private match(text: string): number {
    let at = this.pos;
    for (const char of text) {
      at = this.skipContinuations(at);
      if (this.src[at] !== char) return -1;
      at++;
    }
    return at;
  }

  private newSegment(): SegmentBuilder {
    return { start: -1, end: -1, words: [], redirections: [], inner: [] };
  }

  private extend(seg: SegmentBuilder, start: number): void {
    if (seg.start < 0) seg.start = start;
    seg.end = this.pos;
  }

  private error(message: string): void {
    this.out.errors.push(message);
  }

  private readControlOperator(): string {
    for (const op of CONTROL_OPERATORS[this.dialect]) {
      const end = this.match(op);
      if (end < 0) continue;
      this.pos = end;
      if (op === '|' && !this.bash && this.peek(0) === '&') this.error('"|&" is bash syntax: dash refuses it');
      return op;
    }
    this.pos++; // unreachable: callers only come here on ; | &
    return this.src[this.pos - 1];
  }

  private readRedirection(seg: SegmentBuilder, fd: string, start: number): void {
    const { src } = this;
    let operator = '';
    for (const op of REDIRECTIONS[this.dialect]) {
      const end = this.match(op);
      if (end < 0) continue;
      operator = op;
      this.pos = end;
      break;
    }
    for (;;) {
      this.pos = this.skipContinuations(this.pos);
      if (src[this.pos] !== ' ' && src[this.pos] !== '\t') break;
      this.pos++;
    }
    const at = src[this.pos];
    let target: CommandWord | undefined;
    if (at === undefined || WORD_END.has(at) || ((at === '<' || at === '>') && !(this.bash && this.peek(1) === '('))) {
      this.error(`redirection "${fd}${operator}" has no target`);
    } else {
      target = this.readWord(seg.inner);
    }
    if (target && (operator === '<<' || operator === '<<-')) {
      const quoted = /['"\\]/.test(target.raw.replace(/\\\n/g, ''));
      this.heredocs.push({ delimiter: target.value, stripTabs: operator === '<<-', expand: !quoted });
    }
    const redirection: Redirection = { fd, operator, target: target?.value ?? '', text: src.slice(start, this.pos) };
    this.extend(seg, start);
    seg.redirections.push(redirection);
    this.out.redirections.push(redirection);
  }

  private readWord(inner: CommandSegment[]): CommandWord {
    const { src } = this;
    const start = this.pos;
    let value = '';
    let expands = false;
    let leadingExpansion = false;
    let brace = false;
    let leadingBrace = false;
    const expansion = () => {
      if (value === '') leadingExpansion = true;
      expands = true;
    };
    for (;;) {
      const at = this.skipContinuations(this.pos);
      if (at >= src.length || WORD_END.has(src[at])) break;
      this.pos = at;
      const c = src[this.pos];
      const next = src[this.pos + 1];
      if (c === '<' || c === '>') {
        if (!this.bash || this.peek(1) !== '(') break;
        expansion();
        value += this.readSubstitution(inner, this.match(c + '('));
      } else if (c === '\\') {
        if (next === undefined) {
          value += '\\';
          this.pos++;
        } else {
          value += next;
          this.pos += 2;
        }
      } else if (c === "'") {
        const end = src.indexOf("'", this.pos + 1);
        if (end < 0) {
          this.error('unterminated single quote');
          value += src.slice(this.pos + 1);
          this.pos = src.length;
        } else {
          value += src.slice(this.pos + 1, end);
          this.pos = end + 1;
        }
      } else if (c === '"') {
        value += this.readDoubleQuoted(inner, expansion);
      } else if (c === '$') {
        value += this.readDollar(inner, expansion, false);
      } else if (c === '`') {
        expansion();
        value += this.readBackticks(inner);
      } else if (c === '*' || c === '?' || (c === '[' && this.closesBracket())) {
        expansion();
        value += c;
        this.pos++;
      } else {
        if (c === '{') {
          if (value === '') leadingBrace = true;
          brace = true;
        }
        value += c;
        this.pos++;
      }
    }
    const raw = src.slice(start, this.pos);
    // `{`, `}` and find's `{}` are not brace expansions.
    if (brace && raw !== '{' && raw !== '}' && raw !== '{}') {
      expands = true;
      if (leadingBrace) leadingExpansion = true;
    }
    return { value, raw, expands, leadingExpansion };
  }

  /** At `[`: a glob only when a `]` follows in the same word (`[` alone is the test command). */
  private closesBracket(): boolean {
    // Remember the last scan so a word full of `[` stays linear.
    if (this.pos < this.bracketScan.until) return this.bracketScan.found;
    let i = this.pos + 1;
    for (; i < this.src.length; i++) {
      const c = this.src[i];
      if (c === ']') break;
      if (WORD_END.has(c) || c === '<' || c === '>') break;
    }
    this.bracketScan = { until: i, found: this.src[i] === ']' };
    return this.bracketScan.found;
  }

  private readDoubleQuoted(inner: CommandSegment[], expansion: () => void): string {
    const { src } = this;
    this.pos++; // opening quote
    let value = '';
    while (this.pos < src.length) {
      const c = src[this.pos];
      const next = src[this.pos + 1];
      if (c === '"') {
        this.pos++;
        return value;
      }
      if (c === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
        if (next !== '\n') value += next;
        this.pos += 2;
      } else if (c === '$') {
        value += this.readDollar(inner, expansion, true);
      } else if (c === '`') {
        expansion();
        value += this.readBackticks(inner);
      } else {
        value += c;
        this.pos++;
      }
    }
    this.error('unterminated double quote');
    return value;
  }

  /** At a `$`: returns the expansion as written (or a literal `$`). */
  private readDollar(inner: CommandSegment[], expansion: () => void, inDoubleQuotes: boolean): string {
    const { src } = this;
    const start = this.pos;
    const next = this.peek(1);
    if (next === '(') {
      expansion();
      const arithmetic = this.match('$((');
      if (arithmetic >= 0) this.readArithmetic(inner, arithmetic);
      else this.readSubstitution(inner, this.match('$('));
      return src.slice(start, this.pos);
    }
    if (next === '{') {
      expansion();
      this.readBracedParameter(inner);
      return src.slice(start, this.pos);
    }
    if (this.bash && next === "'" && !inDoubleQuotes) {
      // bash's ANSI-C quoting: escapes like \x2d can spell anything, so treat it as an expansion.
      // dash has none: `$'\'` is a `$` then the single-quoted `\`.
      expansion();
      this.pos = this.match("$'");
      while (this.pos < src.length && src[this.pos] !== "'") this.pos += src[this.pos] === '\\' ? 2 : 1;
      if (this.pos >= src.length) this.error("unterminated $'…' quote");
      else this.pos++;
      return src.slice(start, this.pos);
    }
    if (this.bash && next === '"' && !inDoubleQuotes) {
      this.pos = this.skipContinuations(this.pos + 1); // bash's $"…" (locale string) quotes like "…"
      return this.readDoubleQuoted(inner, expansion);
    }
    let end = this.skipContinuations(this.pos + 1);
    if (NAME_START.test(src[end] ?? '')) {
      while (NAME_CHAR.test(src[end] ?? '')) end = this.skipContinuations(end + 1);
    } else if (SPECIAL_PARAMETER.test(src[end] ?? '')) end++;
    else {
      this.pos++;
      return '$';
    }
    expansion();
    this.pos = end;
    return src.slice(start, this.pos);
  }

  private readBracedParameter(inner: CommandSegment[]): void {
    const { src } = this;
    this.pos = this.match('${');
    let depth = 1;
    const ignore = () => {};
    while (this.pos < src.length) {
      const c = src[this.pos];
      if (c === '}') {
        this.pos++;
        if (--depth === 0) return;
      } else if (c === '\\') this.pos += 2;
      else if (c === "'") {
        const end = src.indexOf("'", this.pos + 1);
        this.pos = end < 0 ? src.length : end + 1;
      } else if (c === '"') this.readDoubleQuoted(inner, ignore);
      else if (c === '`') this.readBackticks(inner);
      else if (c === '$' && this.peek(1) === '{') {
        depth++;
        this.pos = this.match('${');
      } else if (c === '$') this.readDollar(inner, ignore, true);
      else this.pos++;
    }
    this.error('unterminated ${…}');
  }

  /** From just inside `$((`: arithmetic runs nothing itself, but $(…) and `…` inside it do. */
  private readArithmetic(inner: CommandSegment[], bodyStart: number): void {
    const { src } = this;
    this.pos = bodyStart;
    let depth = 0;
    const ignore = () => {};
    while (this.pos < src.length) {
      this.pos = this.skipContinuations(this.pos);
      const c = src[this.pos];
      if (c === '(') {
        depth++;
        this.pos++;
      } else if (c === ')') {
        if (depth > 0) {
          depth--;
          this.pos++;
        } else {
          const end = this.match('))');
          if (end < 0) this.error('arithmetic $((…)) closed by a single ")"');
          this.pos = end < 0 ? this.pos + 1 : end;
          return;
        }
      } else if (c === '\\') this.pos += 2;
      else if (c === '$') this.readDollar(inner, ignore, true);
      else if (c === '`') this.readBackticks(inner);
      else if (c === '"') this.readDoubleQuoted(inner, ignore);
      else if (c !== undefined) this.pos++;
    }
    this.error('unterminated arithmetic $((…))');
  }

  /** From just inside `$(`, `<(` or `>(`: parses the body as a command list of its own. */
  private readSubstitution(inner: CommandSegment[], bodyStart: number): string {
    const { src } = this;
    const start = this.pos;
    this.pos = bodyStart;
    if (this.depth >= MAX_DEPTH) {
      this.error('substitutions nested too deeply');
      this.pos = src.length;
      return src.slice(start);
    }
    const child = new Parser(src, this.out, this.depth + 1, true, this.dialect);
    child.pos = this.pos;
    const segments = child.parseList(true);
    this.pos = child.pos;
    // A here-document opened inside $(…) on the line of its `)` has its body after that line.
    this.heredocs.push(...child.heredocs);
    this.out.substitutions.push(src.slice(bodyStart, child.closed ? this.pos - 1 : this.pos).trim());
    inner.push(...segments);
    return src.slice(start, this.pos);
  }
  /** At a backtick: extracts the body (undoing \` \\ \$) and parses it as a command list. */
  private readBackticks(inner: CommandSegment[]): string {
    const { src } = this;
    const start = this.pos;
    this.pos++;
    let body = '';
    let closed = false;
    while (this.pos < src.length) {
      const c = src[this.pos];
      const next = src[this.pos + 1];
      if (c === '`') {
        closed = true;
        this.pos++;
        break;
      }
      if (c === '\\' && next !== undefined) {
        body += '`\\$'.includes(next) ? next : c + next;
        this.pos += 2;
      } else {
        body += c;
        this.pos++;
      }
    }
    if (!closed) this.error('unterminated backquote');
    if (this.depth >= MAX_DEPTH) {
      this.error('substitutions nested too deeply');
      return src.slice(start, this.pos);
    }
    this.out.substitutions.push(body.trim());
    inner.push(...new Parser(body, this.out, this.depth + 1, true, this.dialect).parseList(false));
    return src.slice(start, this.pos);
  }

  /** After a newline: consumes the bodies of pending here-documents, scanning unquoted ones for substitutions. */
  private readHeredocBodies(): CommandSegment[] {
    const { src } = this;
    const found: CommandSegment[] = [];
    const pending = this.heredocs;
    this.heredocs = [];
    for (const heredoc of pending) {
      const lines: string[] = [];
      let terminated = false;
      while (this.pos < src.length) {
        const newline = src.indexOf('\n', this.pos);
        const line = src.slice(this.pos, newline < 0 ? src.length : newline);
        this.pos = newline < 0 ? src.length : newline + 1;
        if ((heredoc.stripTabs ? line.replace(/^\t+/, '') : line) === heredoc.delimiter) {
          terminated = true;
          break;
        }
        lines.push(line);
      }
      if (!terminated) this.error(`unterminated here-document: missing "${heredoc.delimiter}" line`);
      if (heredoc.expand) found.push(...new Parser(lines.join('\n'), this.out, this.depth + 1, true, this.dialect).scanExpansions());
    }
    return found;
  }
}

/** Parses a command line into simple commands, operators, substitutions and redirections (see file comment). */
export function parseCommandLine(command: string, dialect: ShellDialect = 'dash'): ParsedCommandLine {
  const out: Output = { operators: [], substitutions: [], redirections: [], errors: [] };
  const segments = new Parser(command, out, 0, false, dialect).parseList(false);
  return { segments, ...out };
}
