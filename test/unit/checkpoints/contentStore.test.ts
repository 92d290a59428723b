import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContentStore, hashFileStreaming } from '../../../src/core/checkpoints/contentStore';

function objectFiles(dir: string): string[] {
  const root = join(dir, 'objects');
  return readdirSync(root).flatMap((sub) => readdirSync(join(root, sub)).map((name) => `${sub}/${name}`));
}

describe('content store', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cortex-cas-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names a content by its sha256 and gives the same bytes back', async () => {
    const store = new ContentStore(dir);
    const bytes = Buffer.from('hello\r\nworld\u0000binary');
    const hash = await store.put(bytes);
    assert.equal(hash, createHash('sha256').update(bytes).digest('hex'));
    assert.deepEqual(await store.get(hash), bytes);
    assert.deepEqual(readFileSync(store.pathOf(hash)), bytes);
    assert.equal(await store.has(hash), true);
  });

  it('stores each content once, whoever puts it and however often (even at the same moment)', async () => {
    const store = new ContentStore(dir);
    const same = Buffer.from('x'.repeat(100_000));
    await Promise.all(Array.from({ length: 20 }, () => store.put(same)));
    await new ContentStore(dir).put(same);
    await store.put(Buffer.from('other'));
    assert.equal(objectFiles(dir).length, 2);
    assert.ok(
      objectFiles(dir).every((name) => !name.endsWith('.tmp')),
      'no temporary file is left behind',
    );
  });

  it('answers undefined for a content never stored and refuses what is not a hash', async () => {
    const store = new ContentStore(dir);
    assert.equal(await store.get('0'.repeat(64)), undefined);
    assert.equal(await store.has('0'.repeat(64)), false);
    assert.throws(() => store.pathOf('../../etc/passwd'), /not a content hash/);
  });

  it('treats an object whose bytes do not match its name (a write cut short) as missing, and a new put repairs it', async () => {
    const store = new ContentStore(dir);
    const bytes = Buffer.from('the real content');
    const hash = await store.put(bytes);
    writeFileSync(store.pathOf(hash), 'the real con');
    const fresh = new ContentStore(dir);
    assert.equal(await fresh.get(hash), undefined);
    await fresh.put(bytes);
    assert.deepEqual(await fresh.get(hash), bytes);
  });

  it('hashes a file as a stream (for files too large to keep), undefined when it is gone', async () => {
    const store = new ContentStore(dir);
    const hash = await store.put(Buffer.from('streamed'));
    assert.equal(await hashFileStreaming(store.pathOf(hash)), hash);
    assert.equal(await hashFileStreaming(join(dir, 'missing')), undefined);
  });
});
