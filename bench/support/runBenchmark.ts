// The end every benchmark file shares: one line saying whether all its targets were met, and the
// exit code `npm run bench` counts (1 for a missed target or an error, which is printed).

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
