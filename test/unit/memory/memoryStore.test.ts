import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_MEMORY_TEXT_CHARS, MemoryStore } from '../../../src/core/memory/memoryStore';

function tempFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'cortex-memory-')), 'nested', 'memory.json');
}

describe('workspace memory store (docs/design.md, “Context budget and memory”)', () => {
  it('stores, finds by full-text search (best first) and forgets', async () => {
    const store = new MemoryStore(tempFile(), () => 42);
    const build = await store.store('The project is built with npm run build (esbuild bundles into dist/).', ['build']);
    const tests = await store.store('Unit tests run with mocha through tsx: npm run test:unit.', ['test']);
    await store.store('The panel is a webview drawn with d3-dag.');
    assert.match(build.id, /^m[0-9a-f]{8}$/);
    assert.equal(build.createdAt, 42);
    const hits = await store.search('how do I run the unit tests', 5);
    assert.equal(hits[0].id, tests.id);
    assert.ok(hits[0].score > 0);
    assert.equal((await store.search('esbuild bundle', 1))[0].id, build.id, 'prefix matching: bundle → bundles');
    assert.equal((await store.search('buils', 1))[0]?.id, build.id, 'fuzzy: a typo still finds it');
    assert.deepEqual(await store.search('kubernetes', 5), []);
    assert.equal(await store.forget(tests.id), true);
    assert.equal(await store.forget(tests.id), false);
    assert.equal((await store.list()).length, 2);
  });

  it('keeps entries in a JSON file that a second store (another run) reads', async () => {
    const file = tempFile();
    const entry = await new MemoryStore(file).store('Use pnpm, not npm.', ['tooling']);
    const data = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(data.version, 1);
    assert.deepEqual(data.entries, [entry]);
    const other = new MemoryStore(file);
    assert.equal((await other.search('pnpm', 5))[0].id, entry.id);
    // A write by one store is seen by the other without reopening.
    const second = await new MemoryStore(file).store('Node 24 is required.');
    assert.equal((await other.search('node required', 5))[0].id, second.id);
  });

  it('writes atomically: no temporary file is left, and concurrent stores all land', async () => {
    const file = tempFile();
    const store = new MemoryStore(file);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.store(`fact number ${i}`)));
    assert.equal((await new MemoryStore(file).list()).length, 20);
    assert.deepEqual(readdirSync(join(file, '..')), ['memory.json']);
  });

  it('refuses a file that is not a memory file instead of overwriting it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cortex-memory-')), 'memory.json');
    writeFileSync(file, '{"not": "memory"');
    const store = new MemoryStore(file);
    await assert.rejects(store.store('x'), /memory file .* is not valid JSON .*fix or delete it/);
    await assert.rejects(store.search('x', 5), /not valid JSON/);
    assert.equal(readFileSync(file, 'utf8'), '{"not": "memory"');
    writeFileSync(file, '{"version": 2, "entries": []}');
    await assert.rejects(store.list(), /not a Cortex memory file/);
  });

  it('refuses empty and oversized text with a clear message', async () => {
    const store = new MemoryStore(tempFile());
    await assert.rejects(store.store('   '), /needs some text/);
    await assert.rejects(store.store('x'.repeat(MAX_MEMORY_TEXT_CHARS + 1)), /at most 4000 characters/);
  });

  it('a missing file is an empty memory', async () => {
    const store = new MemoryStore(tempFile());
    assert.deepEqual(await store.list(), []);
    assert.deepEqual(await store.search('anything', 5), []);
  });
});
