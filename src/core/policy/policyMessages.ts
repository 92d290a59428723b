// The tool messages the model gets when a call does not run because of the policy or a person, so
// every caller (step executor, CLI) words them the same way and the model knows not to insist.

/** Tool result for a call the policy denied (the call finishes with an error). */
export function policyDeniedMessage(toolName: string, reason: string): string {
  return `Error: the call to "${toolName}" was denied by policy (${reason}). It did not run. Do not retry it unchanged; use another approach or report that it is not allowed.`;
}

/** Tool result for a call the user denied (status rejected), with the user's feedback if any. */
export function userDeniedMessage(toolName: string, feedback?: string): string {
  const base = `The user denied the call to "${toolName}". It did not run.`;
  const note = feedback?.trim();
  return note ? `${base} User feedback: ${note}` : `${base} Do not retry it unchanged; continue without it or try a different approach.`;
}
