// The streaming benchmark's endpoint, in its own process so its CPU time is not charged to the
// clients measured: it answers every POST .../chat/completions with the recorded SSE body given
// as a file, on 127.0.0.1, in one of two read modes chosen by the path's first segment:
//   /reads16k/v1/...  the body in 16 KiB writes, one per millisecond;
//   /events/v1/...    one SSE event per write, one per millisecond, as live providers stream.
// Writes are spaced so each one reaches the client as its own network read. Prints "PORT <n>".
import { readFileSync } from 'node:fs';
import http from 'node:http';

const body = readFileSync(process.argv[2], 'utf8');
const events = body.split(/(?<=\n\n)/).map((event) => Buffer.from(event));
const bytes = Buffer.from(body);
const slices = [];
for (let i = 0; i < bytes.length; i += 16 * 1024) slices.push(bytes.subarray(i, i + 16 * 1024));

const server = http.createServer({ keepAlive: true, noDelay: true }, (req, res) => {
  const mode = (req.url ?? '').split('/')[1];
  const parts = mode === 'events' ? events : mode === 'reads16k' ? slices : undefined;
  req.resume();
  req.on('end', () => {
    if (!parts || req.method !== 'POST') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `unknown path ${req.url}` } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    let next = 0;
    const write = () => {
      if (res.destroyed) return;
      res.write(parts[next++]);
      if (next < parts.length) setTimeout(write, 1);
      else res.end();
    };
    write();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`PORT ${server.address().port}\n`);
});
process.on('disconnect', () => process.exit(0));
