// Command arguments arrive from anywhere (a panel message, a view item, a keybinding's args, another
// extension): each is checked for the one shape it may have, and anything else means "no argument".

/** A run id given as a string, `{ runId }` (the panel) or a view item carrying `runId`; undefined otherwise. */
export function runIdArgument(arg: unknown): string | undefined {
  const value = typeof arg === 'object' && arg !== null ? (arg as { runId?: unknown }).runId : arg;
  return typeof value === 'string' && value !== '' ? value : undefined;
}
