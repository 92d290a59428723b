import assert from 'node:assert/strict';
import { terminalSafe } from '../../../src/core/text/terminalSafe';

describe('terminalSafe (what the CLI prints from models and tools)', () => {
  it('keeps ordinary text, newlines, tabs and non-Latin scripts unchanged', () => {
    const text = 'plan: build\n\tstep 2 — 写入文件 (ok) \\x1b stays text';
    assert.equal(terminalSafe(text), text);
  });

  it('shows ESC sequences, CR, BEL and backspace as visible escapes', () => {
    assert.equal(terminalSafe('touch x #\r\u001b[2K\u001b[8m'), 'touch x #\\r\\x1b[2K\\x1b[8m');
    assert.equal(terminalSafe('\u001b]0;title\u0007\u001bc\u00077\b'), '\\x1b]0;title\\x07\\x1bc\\x077\\b');
    assert.equal(terminalSafe('\u0000\u000b\u000c\u007f'), '\\0\\v\\f\\x7f');
  });

  it('shows every C0 control except tab and newline, DEL and every C1 control', () => {
    for (let code = 0; code <= 0x9f; code++) {
      const char = String.fromCharCode(code);
      const unsafe = code < 0x20 ? code !== 0x09 && code !== 0x0a : code >= 0x7f;
      const shown = terminalSafe(char);
      if (unsafe) assert.match(shown, /^\\/, `U+${code.toString(16)} must be escaped`);
      else assert.equal(shown, char);
      // eslint-disable-next-line no-control-regex -- matching control characters is the point
      assert.doesNotMatch(shown, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    }
    assert.equal(terminalSafe('\u009b31m'), '\\x9b31m');
  });

  it('shows bidi overrides, isolates and the Unicode line separators', () => {
    const bidi = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u2028', '\u2029'];
    for (const char of bidi) assert.equal(terminalSafe(`a${char}b`), `a\\u${char.charCodeAt(0).toString(16)}b`);
    assert.equal(terminalSafe('rm -rf /tmp/\u202eexe.sh'), 'rm -rf /tmp/\\u202eexe.sh');
  });
});
