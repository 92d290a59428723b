import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

// A forward proxy on 127.0.0.1 for the proxy tests: it tunnels CONNECT requests and relays
// absolute-form requests, as a company proxy does, and notes every target it was asked for.

export interface ForwardProxy {
  url: string;
  /** `host:port` of each request or tunnel, in order. */
  targets(): string[];
  close(): Promise<void>;
}

/** `hosts`: names only the proxy can resolve (like a company's internal names), mapped to addresses. */
export async function startForwardProxy(options: { hosts?: Record<string, string> } = {}): Promise<ForwardProxy> {
  const address = (host: string) => options.hosts?.[host] ?? host;
  const targets: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const target = new URL(req.url ?? '/');
    targets.push(target.host);
    const upstream = http.request(
      { host: address(target.hostname), port: target.port, path: `${target.pathname}${target.search}`, method: req.method, headers: req.headers },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    targets.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), address(host), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    targets: () => [...targets],
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/**
 * The environment for a `cortex` process in a proxy or certificate test: an API key, and none of
 * the machine's own proxy or extra-CA variables, then `extra`.
 */
export function cleanProxyEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, OPENAI_API_KEY: 'sk-test' };
  for (const name of Object.keys(env))
    if (/^(https?|no|all)_proxy$/i.test(name) || name === 'NODE_USE_ENV_PROXY' || name === 'NODE_EXTRA_CA_CERTS') delete env[name];
  return { ...env, ...extra };
}
