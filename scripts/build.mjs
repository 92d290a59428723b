#!/usr/bin/env node
// Bundles the entry points with esbuild (types are checked separately by `tsc --noEmit`):
//   extension  src/extension.ts -> dist/extension.js  (node, cjs, `vscode` external; activation only)
//   agentHost  src/host/agentHost.ts -> dist/agentHost.js (node, cjs; the agent core, loaded on first use)
//   cli        src/cli/main.ts  -> dist/cli.js        (node, cjs, `#!/usr/bin/env node`; the entry: help, compile cache)
//   cliCommands src/cli/cliCommands.ts -> dist/cliCommands.js (node, cjs; the commands and the agent, loaded on use)
//   o200k      src/core/context/o200k.ts -> dist/o200k.js (node, cjs; the tokenizer, loaded on the first count)
//   webview    webview/main.ts  -> dist/webview.js    (browser, iife)
// and, with the webview, copies VS Code's icon font (@vscode/codicons: codicon.css + codicon.ttf)
// into dist/codicons/, where the panel loads it from.
// `--production` minifies and drops source maps; development builds keep linked source maps.
import { build } from 'esbuild';
import { chmodSync, copyFileSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const production = process.argv.includes('--production');
const only = process.argv
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');

const entries = [
  {
    // Activation only: `./agentHost` stays a require of dist/agentHost.js, loaded on first use.
    name: 'extension',
    entry: 'src/extension.ts',
    options: { platform: 'node', format: 'cjs', target: 'node22', outfile: 'dist/extension.js', external: ['vscode', './agentHost'] },
  },
  {
    name: 'agentHost',
    entry: 'src/host/agentHost.ts',
    options: { platform: 'node', format: 'cjs', target: 'node22', outfile: 'dist/agentHost.js', external: ['vscode', './o200k'] },
  },
  {
    // The entry only: `--help` and the compile cache; `./cliCommands` stays a require of dist/cliCommands.js.
    name: 'cli',
    entry: 'src/cli/main.ts',
    options: { platform: 'node', format: 'cjs', target: 'node22', outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' }, external: ['./cliCommands'] },
    executable: true,
  },
  {
    name: 'cliCommands',
    groups: ['cli'],
    entry: 'src/cli/cliCommands.ts',
    options: { platform: 'node', format: 'cjs', target: 'node22', outfile: 'dist/cliCommands.js', external: ['./o200k'] },
  },
  {
    // The tokenizer, required on the first count by the bundles above (each keeps `./o200k` external).
    name: 'o200k',
    groups: ['cli', 'agentHost'],
    entry: 'src/core/context/o200k.ts',
    options: { platform: 'node', format: 'cjs', target: 'node22', outfile: 'dist/o200k.js' },
  },
  {
    name: 'webview',
    entry: 'webview/main.ts',
    options: {
      platform: 'browser',
      format: 'iife',
      target: ['chrome120'],
      outfile: 'dist/webview.js',
      define: { 'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development') },
    },
  },
];

/**
 * zod's namespace object carries every message locale (about 260 KiB minified), which a bundle
 * cannot leave out once `z` is used as a value; Cortex only uses the English messages zod sets by
 * default. Inside zod, its locales index resolves to English alone: less to load at every start.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]v4[\\/](classic|core)$/.test(args.resolveDir)
        ? { path: join(args.resolveDir, '..', 'locales', 'en.js'), namespace: 'zod-english' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-english' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

/** The panel's icon font: the CSS finds codicon.ttf next to itself. */
const CODICON_FILES = ['codicon.css', 'codicon.ttf'];

function copyCodicons() {
  const from = join(root, 'node_modules', '@vscode', 'codicons', 'dist');
  const to = join(root, 'dist', 'codicons');
  mkdirSync(to, { recursive: true });
  let bytes = 0;
  for (const file of CODICON_FILES) {
    copyFileSync(join(from, file), join(to, file));
    bytes += statSync(join(to, file)).size;
  }
  console.log(`build: codicons  node_modules/@vscode/codicons/dist -> dist/codicons/ (${CODICON_FILES.join(', ')}, ${(bytes / 1024).toFixed(0)} KiB)`);
}

const started = Date.now();
mkdirSync(join(root, 'dist'), { recursive: true });
// Left by builds from before the token counter ran on the run's own thread; nothing loads it now.
rmSync(join(root, 'dist', 'tokenCountWorker.js'), { force: true });
rmSync(join(root, 'dist', 'tokenCountWorker.js.map'), { force: true });
let failed = false;
for (const { name, groups = [], entry, options, executable } of entries) {
  if (only && !only.includes(name) && !groups.some((group) => only.includes(group))) continue;
  const source = join(root, entry);
  const outfile = join(root, options.outfile);
  rmSync(`${outfile}.map`, { force: true });
  try {
    const result = await build({
      entryPoints: [source],
      bundle: true,
      ...options,
      outfile,
      minify: production,
      sourcemap: production ? false : 'linked',
      legalComments: production ? 'none' : 'inline',
      logLevel: 'warning',
      metafile: true,
      plugins: [zodEnglishOnly],
    });
    if (executable) chmodSync(outfile, 0o755);
    const bytes = Object.entries(result.metafile.outputs)
      .filter(([file]) => file.endsWith('.js'))
      .reduce((sum, [, output]) => sum + output.bytes, 0);
    console.log(`build: ${name.padEnd(16)} ${entry} -> ${options.outfile} (${(bytes / 1024).toFixed(0)} KiB)`);
  } catch (error) {
    // esbuild already printed the located errors.
    console.error(`build: ERROR bundling ${entry}: ${error.message.split('\n')[0]}`);
    failed = true;
  }
}
if (!only || only.includes('webview')) {
  try {
    copyCodicons();
  } catch (error) {
    console.error(`build: ERROR copying the codicon font for the panel: ${error.message} (is @vscode/codicons installed?)`);
    failed = true;
  }
}
if (failed) process.exit(1);
console.log(`build: done in ${Date.now() - started} ms (${production ? 'production' : 'development'}).`);
