import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

// The CLI as it ships: the production bundles that scripts/build.mjs writes to dist/.

const root = resolve(__dirname, '..', '..');

/** The production CLI's entry point, once `buildProductionCli` has run. */
export const PRODUCTION_CLI = join(root, 'dist', 'cli.js');

/** Builds the production CLI bundles (the build's output goes to this process's terminal); throws if the build fails. */
export function buildProductionCli(): void {
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--production', '--only=cli'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`the production build failed (exit ${build.status})`);
}
