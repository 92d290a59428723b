/** Run ids come back from webview state, globalState and trace files: accept only file-name-safe ids. */
export function isRunId(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(value);
}
