#!/usr/bin/env node
// Bundles the three entry points with esbuild (types are checked separately by `tsc --noEmit`):
//   extension  src/extension.ts -> dist/extension.js  (node, cjs, `vscode` external)
//   cli        src/cli/main.ts  -> dist/cli.js        (node, cjs, `#!/usr/bin/env node`)
//   webview    webview/main.ts  -> dist/webview.js    (browser, iife)
// `--production` minifies, drops source maps and fails on anything missing. Without it (while the
// project is being written) an entry whose source does not exist yet is skipped with a warning, and
// an import of a core module that does not exist yet is replaced by a module that throws a clear
// error when used, so the extension still activates and says what is missing.
import { build } from 'esbuild';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const production = process.argv.includes('--production');
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length).split(',');

const entries = [
  {
    name: 'extension',
    entry: 'src/extension.ts',
    options: { platform: 'node', format: 'cjs', target: 'node22', outfile: 'dist/extension.js', external: ['vscode'] },
  },
  {
    name: 'cli',
    entry: 'src/cli/main.ts',
    options: { platform: 'node', format: 'cjs', target: 'node22', outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
    executable: true,
  },
  {
    name: 'webview',
    entry: 'webview/main.ts',
    options: { platform: 'browser', format: 'iife', target: ['chrome120'], outfile: 'dist/webview.js', define: { 'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development') } },
  },
];

const warnedMissing = new Set();
/** Names `importer` imports from `specifier` (type-only imports are erased by esbuild anyway). */
function importedNames(importer, specifier) {
  const source = readFileSync(importer, 'utf8');
  const quoted = specifier.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const names = new Set();
  for (const match of source.matchAll(new RegExp(`import\\s+(?:type\\s+)?\\{([^}]*)\\}\\s*from\\s*['"]${quoted}['"]`, 'g'))) {
    for (const part of match[1].split(',')) {
      const name = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0].trim();
      if (/^[A-Za-z_$][\w$]*$/.test(name)) names.add(name);
    }
  }
  return [...names];
}

/** Development only: stand-ins for core modules that other people have not written yet. */
const missingModulePlugin = {
  name: 'missing-module',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (!args.importer.startsWith(join(root, 'src'))) return undefined;
      const base = resolve(args.resolveDir, args.path);
      const candidates = [base, `${base}.ts`, `${base}.tsx`, `${base}.js`, join(base, 'index.ts')];
      if (candidates.some((file) => existsSync(file))) return undefined;
      const relative = base.slice(root.length + 1);
      if (!warnedMissing.has(relative)) console.warn(`build: WARNING ${relative} does not exist yet; the bundle throws a clear error if it is used.`);
      warnedMissing.add(relative);
      // One stand-in per importer, exporting exactly the names that importer uses.
      return { path: `${relative}?from=${args.importer.slice(root.length + 1)}`, namespace: 'missing-module', pluginData: { relative, names: importedNames(args.importer, args.path) } };
    });
    b.onLoad({ filter: /.*/, namespace: 'missing-module' }, (args) => {
      const { relative, names } = args.pluginData;
      const message = `This build of Cortex has no ${relative} yet (it is still being written); rebuild once it exists.`;
      return {
        loader: 'js',
        contents: [
          `const message = ${JSON.stringify(message)};`,
          `const fail = () => { const error = new Error(message); error.name = 'MissingModuleError'; throw error; };`,
          `const missing = () => new Proxy(function () {}, { get: (_t, key) => (key === 'then' || typeof key === 'symbol' ? undefined : fail()), apply: fail, construct: fail });`,
          ...names.map((name) => `export const ${name} = missing();`),
        ].join('\n'),
      };
    });
  },
};

const started = Date.now();
mkdirSync(join(root, 'dist'), { recursive: true });
let failed = false;
for (const { name, entry, options, executable } of entries) {
  if (only && !only.includes(name)) continue;
  const source = join(root, entry);
  if (!existsSync(source)) {
    if (production) {
      console.error(`build: ERROR ${entry} is missing; a production build needs every entry.`);
      failed = true;
    } else {
      console.warn(`build: WARNING ${entry} does not exist yet; skipping the ${name} bundle.`);
    }
    continue;
  }
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
      plugins: production ? [] : [missingModulePlugin],
    });
    if (executable) chmodSync(outfile, 0o755);
    const bytes = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.js')).reduce((sum, [, output]) => sum + output.bytes, 0);
    console.log(`build: ${name.padEnd(9)} ${entry} -> ${options.outfile} (${(bytes / 1024).toFixed(0)} KiB)`);
  } catch (error) {
    // esbuild already printed the located errors.
    console.error(`build: ERROR bundling ${entry}: ${error.message.split('\n')[0]}`);
    failed = true;
  }
}
if (failed) process.exit(1);
console.log(`build: done in ${Date.now() - started} ms (${production ? 'production' : 'development'}).`);
