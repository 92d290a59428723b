import assert from 'node:assert/strict';
import { stripTerminalControls } from '../../../src/core/text/stripTerminalControls';
import { prepareToolOutput } from '../../../src/core/tools/outputCap';

describe('stripTerminalControls (tool output sent to the model)', () => {
  it('removes CSI sequences (colours, cursor moves, erase), 7-bit and 8-bit', () => {
    assert.equal(stripTerminalControls('\u001b[31mred\u001b[0m \u001b[1;32mbold\u001b[39m \u001b[2K\u001b[1Gline \u001b[?25l\u009b31mx'), 'red bold line x');
  });

  it('removes OSC strings ended by BEL or by ST, and DCS/APC strings', () => {
    assert.equal(stripTerminalControls('\u001b]0;evil title\u0007a\u001b]8;;http://x\u001b\\link\u001b]8;;\u001b\\b'), 'alinkb');
    assert.equal(stripTerminalControls('\u001bPq#0;2;0;0;0\u001b\\c\u001b_app\u001b\\d\u009d52;c;aGk=\u009ce'), 'cde');
  });

  it('removes two-character ESC sequences and charset designations', () => {
    assert.equal(stripTerminalControls('a\u001bcb\u001b7c\u001b8d\u001b=e\u001b(Bf\u001bMg'), 'abcdefg');
  });

  it('removes BEL, backspace, other C0 controls, DEL and C1, keeping newline and tab', () => {
    assert.equal(stripTerminalControls('a\u0007b\u0000c\u000bd\u000ce\u007ff\u0085g\u009ch\n\ti'), 'abcdefgh\n\ti');
    assert.equal(stripTerminalControls('trailing escape \u001b'), 'trailing escape ');
  });

  it('lets carriage returns and backspaces overwrite like a terminal', () => {
    assert.equal(stripTerminalControls('line one\r\nline two\r\n'), 'line one\nline two\n');
    assert.equal(stripTerminalControls(' 10%\r 50%\r100%\ndone'), '100%\ndone');
    assert.equal(stripTerminalControls('secret\rpublic'), 'public');
    assert.equal(stripTerminalControls('abcdef\rXY'), 'XYcdef');
    assert.equal(stripTerminalControls('N\bNA\bAME'), 'NAME');
  });

  it('leaves no control character of any kind in the prepared tool output', () => {
    let all = '';
    for (let code = 0; code <= 0x9f; code++) all += `${String.fromCharCode(code)}x`;
    const out = prepareToolOutput(all, 10_000);
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    assert.doesNotMatch(out, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    assert.ok(out.includes('\n') && out.includes('\t'));
  });
});
