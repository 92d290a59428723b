#!/usr/bin/env node
// The `cortex` command (package.json "bin", so `npm link` puts it on PATH): runs the CLI bundle
// dist/cli.js on Node 24 through scripts/node24.mjs, whatever Node runs this launcher.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.js');
if (!existsSync(cli)) {
  console.error(`cortex: the CLI is not built yet: run \`npm run build\` in ${root}`);
  process.exit(2);
}
const result = spawnSync(process.execPath, [join(root, 'scripts', 'node24.mjs'), cli, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
