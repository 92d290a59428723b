import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { createNodeFetch } from '../../../src/core/llm/nodeFetch';

// The node:http fetch the LLM client sends with: what reaches the server (method, path, query,
// credentials, body) and what comes back (status, decoded body, redirects), for URLs given as
// text (parsed once and reused) and as URL objects (read anew on every call).

interface Seen {
  method: string;
  url: string;
  authorization?: string;
  body: string;
}

describe('createNodeFetch', () => {
  let server: http.Server;
  let base: string;
  const seen: Seen[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body: Buffer.concat(parts).toString() });
        if (req.url === '/moved') {
          res.writeHead(302, { location: '/v1/landed?from=moved' });
          res.end();
        } else if (req.url === '/zipped') {
          res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
          res.end(gzipSync('unzipped text'));
        } else {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(`answer to ${req.method} ${req.url}`);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => (seen.length = 0));

  it('sends the method, path, query and body of the same text URL on every call', async () => {
    const send = createNodeFetch();
    for (const body of ['one', 'two']) {
      const response = await send(`${base}/v1/chat/completions?api-version=2024`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
      assert.equal(response.status, 200);
      assert.equal(await response.text(), 'answer to POST /v1/chat/completions?api-version=2024');
    }
    assert.deepEqual(
      seen.map((s) => [s.method, s.url, s.body]),
      [
        ['POST', '/v1/chat/completions?api-version=2024', 'one'],
        ['POST', '/v1/chat/completions?api-version=2024', 'two'],
      ],
    );
  });

  it('sends text bodies as UTF-8 with their byte length, and byte bodies as they are', async () => {
    const send = createNodeFetch();
    await (await send(`${base}/text`, { method: 'POST', body: 'héllo ✓ 𝄞' })).text();
    await (await send(`${base}/bytes`, { method: 'POST', body: new TextEncoder().encode('bytes ✓').subarray(1) })).text();
    assert.deepEqual(
      seen.map((s) => s.body),
      ['héllo ✓ 𝄞', 'ytes ✓'],
    );
  });

  it('sends the credentials of a URL as basic authentication', async () => {
    const send = createNodeFetch();
    const withUser = base.replace('http://', 'http://user:secret@');
    await send(`${withUser}/private`, { method: 'GET' });
    assert.equal(seen[0].authorization, `Basic ${Buffer.from('user:secret').toString('base64')}`);
  });

  it('reads a URL object anew on every call, even when it was changed in between', async () => {
    const send = createNodeFetch();
    const url = new URL(`${base}/first`);
    await (await send(url, { method: 'GET' })).text();
    url.pathname = '/second';
    await (await send(url, { method: 'GET' })).text();
    assert.deepEqual(
      seen.map((s) => s.url),
      ['/first', '/second'],
    );
  });

  it('follows a redirect (a POST answered 302 goes on as a GET) and undoes gzip', async () => {
    const send = createNodeFetch();
    const moved = await send(`${base}/moved`, { method: 'POST', body: 'payload' });
    assert.equal(await moved.text(), 'answer to GET /v1/landed?from=moved');
    assert.deepEqual(
      seen.map((s) => [s.method, s.url]),
      [
        ['POST', '/moved'],
        ['GET', '/v1/landed?from=moved'],
      ],
    );
    assert.equal(await (await send(`${base}/zipped`, { method: 'GET' })).text(), 'unzipped text');
  });

  it('hands what it cannot send itself to the fallback fetch', async () => {
    const asked: string[] = [];
    const fallback = (async (input: string | URL | Request) => {
      asked.push(String(input));
      return new Response('from fallback');
    }) as typeof fetch;
    const send = createNodeFetch(fallback);
    assert.equal(await (await send('not a url', { method: 'GET' })).text(), 'from fallback');
    assert.equal(await (await send('data:text/plain,hello', { method: 'GET' })).text(), 'from fallback');
    assert.deepEqual(asked, ['not a url', 'data:text/plain,hello']);
  });
});
