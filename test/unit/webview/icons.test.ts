import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { CALL_STATUS_ICON, CODICONS, NOTICE_ICON, RUN_STATUS_ICON, STEP_STATUS_ICON } from '../../../webview/icons';

// The panel's icons must come from the codicon font it ships: symbol and emoji characters
// (✓ ✕ ⚑ ⊘ ◐, an hourglass, a stopwatch…) render as empty boxes on machines without such fonts.

const ROOT = join(__dirname, '..', '..', '..');
const CODICON_CSS = readFileSync(join(ROOT, 'node_modules', '@vscode', 'codicons', 'dist', 'codicon.css'), 'utf8');
const defined = new Set([...CODICON_CSS.matchAll(/\.codicon-([a-z0-9-]+):before/g)].map((m) => m[1]));

/** Non-ASCII symbols and pictographs (emoji, dingbats, arrows, geometric shapes, math symbols, private use). */
const SYMBOL = /[\p{Extended_Pictographic}\p{So}\p{Sm}\p{Sk}\p{Co}\u{FE0F}\u{20E3}]/u;
/** Typographic characters that every UI font has and that read as text, not as icons. */
const TEXT_SYMBOLS = new Set(['→']);

/** Symbol characters in a string that is not plain typography. */
function symbolsIn(text: string): string[] {
  return [...text].filter((c) => c.charCodeAt(0) > 0x7f && SYMBOL.test(c) && !TEXT_SYMBOLS.has(c));
}

/** Every string literal and template text of a TypeScript file (comments excluded). */
function stringLiterals(source: string): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, source);
  const out: string[] = [];
  // Which `{` each `}` closes: a block or object, or a template's `${` (whose `}` resumes the template).
  const braces: Array<'block' | 'template'> = [];
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    if (token === ts.SyntaxKind.OpenBraceToken) braces.push('block');
    else if (token === ts.SyntaxKind.TemplateHead) braces.push('template');
    else if (token === ts.SyntaxKind.CloseBraceToken && braces.pop() === 'template') {
      token = scanner.reScanTemplateToken(false);
      if (token === ts.SyntaxKind.TemplateMiddle) braces.push('template');
    }
    if (
      token === ts.SyntaxKind.StringLiteral ||
      token === ts.SyntaxKind.NoSubstitutionTemplateLiteral ||
      token === ts.SyntaxKind.TemplateHead ||
      token === ts.SyntaxKind.TemplateMiddle ||
      token === ts.SyntaxKind.TemplateTail
    ) {
      out.push(scanner.getTokenValue());
    }
  }
  return out;
}

describe('webview icons', () => {
  it('uses only icons that exist in the shipped codicon font', () => {
    assert.ok(defined.size > 300, `parsed ${defined.size} codicons from codicon.css`);
    const missing = CODICONS.filter((name) => !defined.has(name));
    assert.deepEqual(missing, [], 'every name in CODICONS has a .codicon-<name> rule');
  });

  it('maps every step, call, run and notice status to a codicon', () => {
    for (const map of [STEP_STATUS_ICON, CALL_STATUS_ICON, RUN_STATUS_ICON, NOTICE_ICON] as Array<Record<string, string>>) {
      for (const [status, name] of Object.entries(map)) assert.ok(defined.has(name), `${status} -> ${name} is a codicon`);
    }
  });

  it('flags symbol and emoji glyphs but not typographic text', () => {
    assert.deepEqual(symbolsIn('⏳ ✓ ✕ ⚑ ⊘ ◐ ○ ⏱ ⚠ ℹ 🚀 −'), ['⏳', '✓', '✕', '⚑', '⊘', '◐', '○', '⏱', '⚠', 'ℹ', '🚀', '−']);
    assert.deepEqual(symbolsIn('replaced by replan 1 of 2 → s5 · “grep” — Approving… 2–3 +1 <b>'), []);
    assert.deepEqual(stringLiterals("// ✓ in a comment\nconst a = '✓ ok'; const b = `x ${a} ⏳ y`; /* ⚑ */"), ['✓ ok', 'x ', ' ⏳ y']);
  });

  it('has no symbol or emoji character in any webview string (icons are codicon elements)', () => {
    const dir = join(ROOT, 'webview');
    const found: string[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      for (const text of stringLiterals(readFileSync(join(dir, file), 'utf8'))) {
        const symbols = symbolsIn(text);
        if (symbols.length) found.push(`${file}: ${JSON.stringify(text)} uses ${symbols.join(' ')}`);
      }
    }
    assert.deepEqual(found, []);
  });

  it('has no generated-content glyphs in the panel style sheet', () => {
    const css = readFileSync(join(ROOT, 'media', 'panel.css'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    assert.deepEqual(symbolsIn(css), []);
    assert.doesNotMatch(css, /content\s*:\s*['"][^'"]+['"]/, 'no content: "…" glyphs; use a codicon element');
  });
});
