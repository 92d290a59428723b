import type { CommandSegment } from './commandSegments';

// The different ways one segment is looked at by the deny rules: as written, canonical (unquoted
// words joined by one space), and with the prefixes that do not change what runs stripped off
// (keywords, assignments, wrappers such as env/nohup/timeout, a path on the command).

/** Reserved words that can start a segment without being the command itself. */
const KEYWORDS = new Set(['!', '{', '}', 'if', 'then', 'elif', 'else', 'fi', 'do', 'done', 'while', 'until', 'esac']);
/** Commands that run their arguments as another command. */
const WRAPPERS = new Set(['command', 'builtin', 'exec', 'nohup', 'nice', 'env', 'timeout', 'stdbuf', 'ionice', 'setsid', 'time', 'xargs', 'unbuffer']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/;
const WRAPPER_ARGUMENT = /^(?:-.*|\d+(?:\.\d+)?[smhd]?|\{\}|[A-Za-z_][A-Za-z0-9_]*=.*)$/s;
const SHELL = /^(?:ba|da|k|z|tc|c|fi|a|mk)?sh$/;

/**
 * Successive forms of the command with keywords, assignments, wrapper commands (and their
 * options) and a directory on the command name removed: `X=1 nohup /bin/rm -rf /` yields
 * `nohup /bin/rm -rf /`, `/bin/rm -rf /`, `rm -rf /`. After a wrapper's short option (`timeout -s
 * KILL 5 …`) the next word may be that option's value, so both readings are produced.
 */
export function strippedForms(words: string[]): string[][] {
  const forms: string[][] = [];
  const visit = (current: string[], budget: number): void => {
    if (current.length === 0 || budget <= 0 || forms.length >= 64) return;
    const first = current[0];
    if (KEYWORDS.has(first) || ASSIGNMENT.test(first)) return push(current.slice(1), budget);
    if (WRAPPERS.has(first)) {
      const skip = (from: number) => {
        while (from < current.length && WRAPPER_ARGUMENT.test(current[from])) from++;
        return from;
      };
      const index = skip(1);
      if (index > 1 && /^-[A-Za-z]$/.test(current[index - 1]) && index < current.length) push(current.slice(skip(index + 1)), budget);
      return push(current.slice(index), budget);
    }
    if (/[\\/]/.test(first) && !/[\\/]$/.test(first)) return push([first.replace(/^.*[\\/]/, ''), ...current.slice(1)], budget);
  };
  const push = (form: string[], budget: number): void => {
    if (form.length === 0) return;
    forms.push(form);
    visit(form, budget - 1);
  };
  visit(words, 32);
  return forms;
}

/** Every text a deny rule is tested against; a match on any of them denies the segment. */
export function denyViews(segment: CommandSegment): string[] {
  const values = segment.words.map((word) => word.value);
  const views = [segment.text, values.join(' '), ...strippedForms(values).map((form) => form.join(' '))];
  return [...new Set(views.filter((view) => view.length > 0))];
}

/** The program a `sh -c '…'`, `bash -lc '…'` or `eval …` segment runs, to be checked in turn. */
export function innerScript(words: string[]): string | undefined {
  const [name, ...rest] = words;
  if (name === 'eval') return rest.length > 0 ? rest.join(' ') : undefined;
  if (name === undefined || !SHELL.test(name)) return undefined;
  const flag = rest.findIndex((word) => /^-[A-Za-z]*c[A-Za-z]*$/.test(word));
  return flag >= 0 ? rest[flag + 1] : undefined;
}
