// Checks a command's arguments against an allowlist of options, the way GNU getopt reads them:
// bundled short flags (`-la`), short options with a value attached or in the next word (`-n5`,
// `-n 5`), long options with `=value` or the next word, options after operands, and `--` ending
// the options. Long options must be spelled in full: getopt would accept an abbreviation, but an
// abbreviation of an allowed option can also be an exact name of a forbidden one, so only exact
// names are trusted. Anything not listed makes the command "not known to be safe".

export interface OptionSpec {
  /** Short options without a value, e.g. 'alh'. */
  flags?: string;
  /** Short options that take a value (attached or the next word). */
  valued?: string;
  /** Long options without a value (`--name` only). */
  long?: readonly string[];
  /** Long options that take a value (`--name=v` or `--name v`). */
  longValued?: readonly string[];
  /** Long options whose value is optional (`--name` or `--name=v`, never the next word). */
  longOptional?: readonly string[];
  /** `-NUM` (head -5, grep -3, git log -3). */
  numeric?: boolean;
  /** Checks an option's value; return a reason to refuse it. */
  checkValue?: (option: string, value: string) => string | undefined;
}

export type OptionScan =
  { ok: true; operands: string[]; values: string[]; /** Options seen, as `-x` or `--name`. */ seen: string[] } | { ok: false; reason: string };

/** Scans `args` (the words after the command name). */
export function scanOptions(args: readonly string[], spec: OptionSpec): OptionScan {
  const operands: string[] = [];
  const values: string[] = [];
  const seen: string[] = [];
  const flags = spec.flags ?? '';
  const valued = spec.valued ?? '';
  const refuse = (reason: string): OptionScan => ({ ok: false, reason });
  const checked = (option: string, value: string): string | undefined => {
    values.push(value);
    return spec.checkValue?.(option, value);
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const equals = arg.indexOf('=');
      const name = equals < 0 ? arg.slice(2) : arg.slice(2, equals);
      const inline = equals < 0 ? undefined : arg.slice(equals + 1);
      let problem: string | undefined;
      seen.push(`--${name}`);
      if (spec.longValued?.includes(name)) {
        if (inline === undefined) {
          if (i + 1 >= args.length) return refuse(`option "--${name}" has no value`);
          problem = checked(`--${name}`, args[++i]);
        } else problem = checked(`--${name}`, inline);
      } else if (spec.longOptional?.includes(name)) {
        if (inline !== undefined) problem = checked(`--${name}`, inline);
      } else if (spec.long?.includes(name)) {
        if (inline !== undefined) return refuse(`option "--${name}" takes no value`);
      } else {
        return refuse(`option "--${name}" is not on the list of known read-only options`);
      }
      if (problem) return refuse(problem);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      if (spec.numeric && /^-\d+$/.test(arg)) continue;
      for (let j = 1; j < arg.length; j++) {
        const letter = arg[j];
        seen.push(`-${letter}`);
        if (valued.includes(letter)) {
          const attached = arg.slice(j + 1);
          let value = attached;
          if (attached === '') {
            if (i + 1 >= args.length) return refuse(`option "-${letter}" has no value`);
            value = args[++i]!;
          }
          const problem = checked(`-${letter}`, value);
          if (problem) return refuse(problem);
          break;
        }
        if (!flags.includes(letter)) return refuse(`option "-${letter}" is not on the list of known read-only options`);
      }
      continue;
    }
    operands.push(arg);
  }
  return { ok: true, operands, values, seen };
}
