import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { constants as vmConstants, Script } from 'node:vm';
import { crc32 } from 'node:zlib';

// Loads a CommonJS bundle with a V8 code cache made after the bundle has run, not right after it
// was compiled. Node's own compile cache holds the code compiled at load; every function first
// called later (a run's planning, its tool pipeline, its request path) would still be compiled on
// its first call, in every process. A cache written after a complete run holds those functions
// too, so the next start neither parses nor compiles them. The cache file is named by the bundle's
// CRC-32 and length: another bundle never gets this one's code.

export interface WarmModule<T> {
  exports: T;
  /** The bundle's code came from the cache file. */
  fromCache: boolean;
  /**
   * Writes the cache from everything compiled so far, when no usable one was loaded. Call it once
   * the bundle's work has been done (its hot functions compiled). Never throws.
   */
  saveSync(): void;
}

export function loadWarmSync<T>(bundle: string, cacheDir: string): WarmModule<T> {
  // Read as bytes: their CRC is cheaper than the string's (which is encoded again to be summed).
  const bytes = readFileSync(bundle);
  const source = bytes.toString('utf8');
  const cacheFile = join(cacheDir, `${basename(bundle, '.js')}-${crc32(bytes).toString(16)}-${source.length}.v8cache`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // No cache yet: compiled from source, and saved later.
  }
  // A dynamic import() inside the bundle loads as it would in a module Node loaded itself.
  const script = new Script(Module.wrap(source), { filename: bundle, cachedData, importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
  const fromCache = cachedData !== undefined && !script.cachedDataRejected;
  const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  const bundleModule = { exports: {} as T, filename: bundle, id: bundle, loaded: false };
  wrapper.call(bundleModule.exports, bundleModule.exports, createRequire(bundle), bundleModule, bundle, dirname(bundle));
  bundleModule.loaded = true;
  let saved = fromCache;
  return {
    exports: bundleModule.exports,
    fromCache,
    saveSync() {
      if (saved) return;
      saved = true;
      try {
        mkdirSync(cacheDir, { recursive: true });
        // Written beside and renamed: a start running meanwhile reads the old file or the new one whole.
        const partial = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(partial, script.createCachedData());
        renameSync(partial, cacheFile);
        removeOtherVersionsSync(cacheDir, basename(cacheFile), basename(bundle, '.js'));
      } catch {
        // Without a cache the next start only compiles again.
      }
    },
  };
}

/** Caches of earlier versions of the bundle (an upgrade leaves one behind). */
function removeOtherVersionsSync(cacheDir: string, keep: string, name: string): void {
  for (const file of readdirSync(cacheDir)) {
    if (file !== keep && file.startsWith(`${name}-`) && file.endsWith('.v8cache')) rmSync(join(cacheDir, file), { force: true });
  }
}
