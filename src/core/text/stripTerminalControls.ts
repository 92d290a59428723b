// Tool output on its way to the model: what a terminal would act on instead of showing is removed,
// so the model reads the text a person would have seen, without escape noise or hidden payloads.

const ESCAPE_SEQUENCE = new RegExp(
  [
    // CSI: ESC [ (or 8-bit CSI) parameters, intermediates, final byte (colours, cursor moves, erase).
    '(?:\\u001b\\[|\\u009b)[0-?]*[ -/]*[@-~]',
    // OSC, DCS, SOS, PM, APC strings (titles, hyperlinks, clipboard), ended by BEL or ST.
    '(?:\\u001b[\\]PX^_]|[\\u0090\\u0098\\u009d\\u009e\\u009f])[^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c)',
    // Every other ESC sequence: intermediates then a final byte (ESC c, ESC 7, ESC 8, ESC ( B...).
    '\\u001b[ -/]*[0-~]',
    // A lone ESC (unterminated sequence at the end).
    '\\u001b',
  ].join('|'),
  'g',
);

// eslint-disable-next-line no-control-regex
const OTHER_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Removes every terminal control from `text`: ESC sequences (CSI, OSC/DCS/APC strings ended by BEL
 * or ST, two-character ESC x), BEL, backspace and the other C0 controls except newline and tab,
 * DEL and C1 controls. Carriage returns and backspaces overwrite like on a terminal, so a progress
 * bar keeps only its last state and CRLF line ends become plain newlines.
 */
export function stripTerminalControls(text: string): string {
  const withoutSequences = text.replace(ESCAPE_SEQUENCE, '');
  const overwritten = /[\r\b]/.test(withoutSequences) ? withoutSequences.split('\n').map(applyOverwrites).join('\n') : withoutSequences;
  return overwritten.replace(OTHER_CONTROLS, '');
}

/** One line as a terminal shows it: `\r` returns to column 0, `\b` steps back one column. */
function applyOverwrites(line: string): string {
  if (!/[\r\b]/.test(line)) return line;
  const cells: string[] = [];
  let cursor = 0;
  for (const char of line) {
    if (char === '\r') cursor = 0;
    else if (char === '\b') cursor = Math.max(0, cursor - 1);
    else cells[cursor++] = char;
  }
  return cells.join('');
}
