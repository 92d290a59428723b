import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWarmSync } from '../../../src/cli/warmCodeCache';

// The CLI's code cache written after a run: used by the next start of the same bundle, never by
// another bundle (even one of the same length), and never a reason for a start to fail. Each load
// runs in a process of its own, as each start of the CLI does (within one process V8 keeps the
// compiled script and would not even look at the cache).

describe('warmCodeCache', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'cortex-warm-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const bundleWith = (word: string): string => {
    const bundle = join(dir, 'bundle.js');
    writeFileSync(
      bundle,
      `exports.word = '${word}'; exports.shout = function () { return exports.word.toUpperCase() + '!'; }; exports.dir = __dirname; exports.importPath = () => import('node:path').then((m) => typeof m.join);`,
    );
    return bundle;
  };
  type Bundle = { word: string; shout(): string; dir: string; importPath(): Promise<string> };
  const source = join(__dirname, '../../../src/cli/warmCodeCache.ts');
  /** A new process loads the bundle, calls shout(), saves when asked, and reports. */
  const loadInProcess = (bundle: string, cacheDir: string, save = true): { fromCache: boolean; shouted: string } => {
    const script = `const { loadWarmSync } = require(${JSON.stringify(source)}); const m = loadWarmSync(${JSON.stringify(bundle)}, ${JSON.stringify(cacheDir)}); const shouted = m.exports.shout(); if (${save}) m.saveSync(); console.log(JSON.stringify({ fromCache: m.fromCache, shouted }));`;
    return JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' })) as { fromCache: boolean; shouted: string };
  };
  const caches = (): string[] => readdirSync(join(dir, 'cache')).filter((f) => f.endsWith('.v8cache'));

  it('runs the bundle as a CommonJS module (dynamic import included) and serves the next start from the cache written after it ran', async () => {
    const bundle = bundleWith('alpha');
    const first = loadWarmSync<Bundle>(bundle, join(dir, 'unused'));
    assert.equal(first.exports.shout(), 'ALPHA!');
    assert.equal(first.exports.dir, dir);
    assert.equal(await first.exports.importPath(), 'function');
    assert.deepEqual(loadInProcess(bundle, join(dir, 'cache')), { fromCache: false, shouted: 'ALPHA!' });
    assert.equal(caches().length, 1);
    assert.deepEqual(loadInProcess(bundle, join(dir, 'cache')), { fromCache: true, shouted: 'ALPHA!' });
  });

  it('gives a changed bundle of the same length none of the old code, and keeps only the new cache', () => {
    const cache = join(dir, 'cache');
    loadInProcess(bundleWith('alpha'), cache);
    assert.deepEqual(loadInProcess(bundleWith('omega'), cache), { fromCache: false, shouted: 'OMEGA!' });
    assert.equal(caches().length, 1);
    assert.deepEqual(loadInProcess(bundleWith('omega'), cache), { fromCache: true, shouted: 'OMEGA!' });
  });

  it('starts without a cache when the cache folder cannot be written or the file is garbage', () => {
    const bundle = bundleWith('beta');
    const blocked = join(dir, 'blocked');
    writeFileSync(blocked, 'a file where the folder should be');
    assert.deepEqual(loadInProcess(bundle, blocked), { fromCache: false, shouted: 'BETA!' });
    const cache = join(dir, 'cache');
    loadInProcess(bundle, cache);
    writeFileSync(join(cache, caches()[0]), 'not a code cache');
    assert.deepEqual(loadInProcess(bundle, cache), { fromCache: false, shouted: 'BETA!' });
    // The rejected cache was replaced by a good one.
    assert.deepEqual(loadInProcess(bundle, cache), { fromCache: true, shouted: 'BETA!' });
  });
});
