import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// An HTTPS endpoint on 127.0.0.1 in front of a plain-HTTP one (the scripted server), with a
// certificate of its own certificate authority made for the test by the openssl command: what a
// company's internal LLM gateway looks like to a client that must be told to trust its CA.

export interface TlsFront {
  /** https://127.0.0.1:<port>/v1 */
  baseUrl: string;
  /** The PEM file of the CA that signed the endpoint's certificate (for NODE_EXTRA_CA_CERTS). */
  caFile: string;
  close(): Promise<void>;
}

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: 'pipe' });
  } catch (error) {
    throw new Error(`the TLS tests need the openssl command (apt-get install openssl): ${(error as Error).message}`, { cause: error });
  }
}

/** Starts an HTTPS front that relays every request to `upstream` (an http:// base URL ending in /v1). */
export async function startTlsFront(upstream: string): Promise<TlsFront> {
  const dir = mkdtempSync(join(tmpdir(), 'cortex-tls-'));
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Cortex test CA'], dir);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1'], dir);
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(
    ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'san.ext'],
    dir,
  );
  const target = new URL(upstream);
  const sockets = new Set<Socket>();
  const server = https.createServer({ key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) }, (req, res) => {
    const relay = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    });
    relay.on('error', () => res.writeHead(502).end());
    req.pipe(relay);
  });
  server.on('secureConnection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    caFile: join(dir, 'ca.pem'),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
