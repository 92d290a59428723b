import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { tempWorkspace } from '../support/agentHarness';
import { runCortexCommand } from '../support/cortexCommand';
import { cleanProxyEnv, startForwardProxy, type ForwardProxy } from '../support/forwardProxy';
import { json, message, route } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';

// An endpoint behind a company's own certificate authority: the scripted server serves HTTPS with
// a certificate a private CA issued (test/fixtures/tls, valid until 2126). Without that CA the
// `cortex` command says in one line that it does not trust the endpoint and how to fix it (exit 3);
// with NODE_EXTRA_CA_CERTS naming the CA's certificate the run completes, directly and through an
// HTTPS_PROXY tunnel.

const REPO = resolve(__dirname, '..', '..');
const TLS = join(REPO, 'test', 'fixtures', 'tls');

describe('cortex and an endpoint with a private certificate authority', function () {
  this.timeout(90_000);
  let server: ScriptedServer;
  let proxy: ForwardProxy;
  let config: string;

  before(async () => {
    const built = spawnSync(process.execPath, [join(REPO, 'scripts', 'build.mjs'), '--only=cli'], { cwd: REPO, encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
    server = await startScriptedServer(
      route({
        planner: json({ title: 'Answer', steps: ['Say hello'], dependencies: {} }),
        executor: message('hello'),
        aggregator: message('Hello over TLS.'),
      }),
      { tls: { key: readFileSync(join(TLS, 'server.key'), 'utf8'), cert: readFileSync(join(TLS, 'server.pem'), 'utf8') } },
    );
    proxy = await startForwardProxy();
    config = join(mkdtempSync(join(tmpdir(), 'cortex-tls-')), 'config.json');
    writeFileSync(config, JSON.stringify({ 'cortex.llm.baseUrl': server.baseUrl, 'cortex.llm.model': 'scripted-model', 'cortex.llm.maxRetries': 0 }));
  });
  after(async () => {
    await server?.close();
    await proxy?.close();
  });

  const args = () => ['run', '--workspace', tempWorkspace(), '--config', config, 'Say hello'];

  it('without the CA: one line saying the endpoint is not trusted and to give the CA with NODE_EXTRA_CA_CERTS, exit 3', async () => {
    assert.match(server.baseUrl, /^https:\/\//);
    const before = server.chatRequests().length;
    const result = await runCortexCommand(args(), cleanProxyEnv({}));
    assert.equal(result.code, 3, result.stderr);
    assert.match(
      result.stderr,
      /Cortex does not trust the LLM endpoint https:\/\/127\.0\.0\.1:\d+\/v1: its certificate (was issued by|comes from) a certificate authority this machine does not (know|trust) \(\w+\); if your company uses its own certificate authority, give its certificate \(PEM\) with NODE_EXTRA_CA_CERTS=FILE in the environment of the cortex command\./,
    );
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    assert.equal(server.chatRequests().length, before, 'no request got through');
  });

  it('with NODE_EXTRA_CA_CERTS naming the CA, the run completes over HTTPS', async () => {
    const result = await runCortexCommand(args(), cleanProxyEnv({ NODE_EXTRA_CA_CERTS: join(TLS, 'ca.pem') }));
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Hello over TLS\./);
  });

  it('and through an HTTPS_PROXY tunnel (CONNECT), the proxy seeing only the endpoint', async () => {
    const before = proxy.targets().length;
    const result = await runCortexCommand(args(), cleanProxyEnv({ NODE_EXTRA_CA_CERTS: join(TLS, 'ca.pem'), HTTPS_PROXY: proxy.url }));
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Hello over TLS\./);
    const seen = proxy.targets().slice(before);
    assert.ok(seen.length >= 1 && seen.every((target) => target === new URL(server.baseUrl).host), `proxy saw ${JSON.stringify(seen)}`);
  });
});
