/** A one-line message of any error the MCP SDK or Node throws. */
export function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim().replace(/\.$/, '');
}
