// The end every benchmark file shares: one line saying whether all its targets were met, and the
// exit code `npm run bench` counts (1 for a missed target or an error, which is printed; 2 for a
// setup error, setupError).

/** Runs `measure` (true: every target met), prints `<name>: all targets met` or `<name>: a target was MISSED`, and exits. */
export function runBenchmark(name: string, measure: () => Promise<boolean>): void {
  measure().then(
    (ok) => {
      console.log(ok ? `${name}: all targets met` : `${name}: a target was MISSED`);
      process.exit(ok ? 0 : 1);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

/**
 * The exit of a benchmark that cannot run here because something it needs is not set up (e.g.
 * Chromium): `npm run bench` reports it as a setup error, not as a missed target.
 */
export const SETUP_ERROR_EXIT = 2;

/** Prints `message` (what is missing and how to set it up) and exits with SETUP_ERROR_EXIT. */
export function setupError(message: string): never {
  console.error(message);
  process.exit(SETUP_ERROR_EXIT);
}
