#!/usr/bin/env node
// `npm run package`: production build, then `vsce package` into cortex.vsix, then checks the
// archive: under 5 MiB, the extension's bundles and the licence present, no CLI bundle, no
// node_modules/ and no src/.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, process.env.CORTEX_VSIX ?? 'cortex.vsix');
const MAX_BYTES = 5 * 1024 * 1024;
const started = Date.now();
// --dev: an unminified development build, for debugging the packaged extension; never what CI or
// `npm start` ship.
const dev = process.argv.includes('--dev');

function run(label, args) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`package: ${label} failed (exit ${result.status ?? result.signal}).`);
    process.exit(1);
  }
}

/** Entry names of a zip, from its central directory (no unzip binary needed). */
export function zipEntries(buffer) {
  const eocd = buffer.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip file (no end of central directory)');
  const count = buffer.readUInt16LE(eocd + 10);
  let offset = buffer.readUInt32LE(eocd + 16);
  const entries = [];
  for (let i = 0; i < count; i++) {
    if (buffer.readUInt32LE(offset) !== 0x02014b50) throw new Error('corrupt zip central directory');
    const method = buffer.readUInt16LE(offset + 10);
    const compressed = buffer.readUInt32LE(offset + 20);
    const size = buffer.readUInt32LE(offset + 24);
    const nameLength = buffer.readUInt16LE(offset + 28);
    const extraLength = buffer.readUInt16LE(offset + 30);
    const commentLength = buffer.readUInt16LE(offset + 32);
    const local = buffer.readUInt32LE(offset + 42);
    const name = buffer.toString('utf8', offset + 46, offset + 46 + nameLength);
    entries.push({ name, size, method, compressed, local });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The content of one entry (stored or deflated). */
export function zipRead(buffer, entry) {
  const start = entry.local + 30 + buffer.readUInt16LE(entry.local + 26) + buffer.readUInt16LE(entry.local + 28);
  const data = buffer.subarray(start, start + entry.compressed);
  return entry.method === 0 ? data : inflateRawSync(data);
}

run(dev ? 'development build' : 'production build', ['scripts/build.mjs', dev ? '--dev' : '--production']);

// Relative README links/images stay relative (they resolve inside the installed extension; there is
// no public repository URL to rewrite them to).
const vsceArgs = [join(root, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '--no-rewrite-relative-links', '-o', out];
run('vsce package', vsceArgs);

const buffer = readFileSync(out);
const names = zipEntries(buffer).map((entry) => entry.name);
const problems = [];
if (buffer.length >= MAX_BYTES) problems.push(`it is ${buffer.length} bytes, over the 5 MiB limit`);
for (const bad of ['extension/node_modules/', 'extension/src/']) if (names.some((name) => name.startsWith(bad))) problems.push(`it contains ${bad}`);
for (const needed of [
  'extension/package.json',
  'extension/LICENSE.txt',
  'extension/dist/extension.js',
  'extension/dist/agentHost.js',
  'extension/dist/o200k.js',
  'extension/dist/webview.js',
  'extension/dist/codicons/codicon.css',
  'extension/dist/codicons/codicon.ttf',
]) {
  if (!names.includes(needed)) problems.push(`it lacks ${needed}`);
}
// The token counter runs on the run's own thread (context/tokenCounter.ts): no worker script ships.
if (names.includes('extension/dist/tokenCountWorker.js')) problems.push('it contains dist/tokenCountWorker.js, a worker nothing starts any more');
// The CLI is installed from the repository (see the README), never loaded by the extension.
if (names.includes('extension/dist/cli.js')) problems.push('it contains the CLI bundle dist/cli.js, which the extension never loads');
if (names.some((name) => name.endsWith('.map') || name.endsWith('.ts'))) problems.push('it contains source maps or TypeScript sources');
if (problems.length) {
  console.error(`package: ${out} is not acceptable:\n  - ${problems.join('\n  - ')}\nFiles:\n  ${names.join('\n  ')}`);
  process.exit(1);
}
console.log(`package: ${out} ${(statSync(out).size / 1024).toFixed(0)} KiB, ${names.length} files, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
