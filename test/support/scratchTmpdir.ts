import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every temporary file of a test run (workspaces, traces, settings, sockets, and those of the
// processes the tests start, which inherit TMPDIR) goes into one folder of the system's temporary
// folder, removed when the run ends: a run of the suite leaves nothing behind in /tmp.
// CORTEX_KEEP_TEST_TMP=1 keeps it (its path is printed) to look at what a failing test left.

const scratch = mkdtempSync(join(tmpdir(), 'cortex-tests-'));
process.env.TMPDIR = scratch;

export const mochaHooks = {
  afterAll(): void {
    if (process.env.CORTEX_KEEP_TEST_TMP === '1') {
      console.log(`test files kept in ${scratch}`);
      return;
    }
    rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
  },
};
