import { parseCommandLine, type CommandSegment } from './commandSegments';
import { innerScript, strippedForms } from './segmentViews';

// Deny rules read the command line, never the code a command hands to another program: an awk
// or python3 program, what find -exec or xargs start, a script file, a command named by a
// variable. Deny rules are a filter; the sandbox is the boundary. So the approval prompt names
// each such hand-off, and a person knows what the rules did not look at (docs/design.md,
// “Command rules”).

/** Programs that run code given to them (as an argument, a file or their input). */
const INTERPRETERS = new Set(
  'awk gawk mawk nawk sed perl python python2 python3 node nodejs deno bun ruby php lua tclsh Rscript pwsh powershell osascript busybox xargs parallel watch source .'.split(
    ' ',
  ),
);
const SHELLS = /^(?:ba|da|k|mk|z|tc|c|fi|a)?sh$/;
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const ENV_SPLIT = /^(?:-S|--split-string(?:=|$)|-[a-zA-Z]*S)/;
const MAX_DEPTH = 4;

/**
 * One line per program the command hands code to, e.g. `hands code to awk: deny rules cannot see
 * inside it`. A `sh -c '…'` or `eval …` whose body is literal is not named: the deny rules read
 * that body like the line itself.
 */
export function codeHandoffs(segments: readonly CommandSegment[], depth = 0): string[] {
  const notes = new Set<string>();
  for (const segment of segments) {
    const values = segment.words.map((word) => word.value);
    const literal = segment.words.every((word) => !word.expands);
    for (const form of [values, ...strippedForms(values)]) {
      const note = handoff(form, literal);
      if (note) notes.add(note);
      const script = literal && depth < MAX_DEPTH ? innerScript(form) : undefined;
      if (script === undefined) continue;
      // The body of a literal `sh -c '…'` is checked by the deny rules: what it hands on is not.
      for (const dialect of ['dash', 'bash'] as const) {
        for (const inner of codeHandoffs(parseCommandLine(script, dialect).segments, depth + 1)) notes.add(inner);
      }
    }
  }
  return [...notes];
}

function handoff(words: string[], literal: boolean): string | undefined {
  const [first, ...rest] = words;
  if (first === undefined) return undefined;
  if (/^["']?[$`]/.test(first)) return `runs a command named at run time (${first}): deny rules cannot see which`;
  const name = first.replace(/^.*\//, '');
  const opaque = (program: string) => `hands code to ${program}: deny rules cannot see inside it`;
  if (name === 'find') {
    const exec = rest.find((word) => FIND_EXEC.has(word));
    return exec ? opaque(`find ${exec}`) : undefined;
  }
  if (name === 'env') return rest.some((word) => ENV_SPLIT.test(word)) ? opaque('env -S') : undefined;
  if (name === 'eval' || SHELLS.test(name)) {
    // A literal body is parsed and checked like the line itself; a script file, the input or an expansion is not.
    return literal && innerScript(words) !== undefined ? undefined : opaque(name);
  }
  return INTERPRETERS.has(name) ? opaque(name) : undefined;
}
