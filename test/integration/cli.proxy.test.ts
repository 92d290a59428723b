import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { proxyFor } from '../../src/core/llm/envProxy';
import { tempWorkspace } from '../support/agentHarness';
import { runCortexCommand } from '../support/cortexCommand';
import { cleanProxyEnv, startForwardProxy, type ForwardProxy } from '../support/forwardProxy';
import { json, message, route } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';

// Behind a company proxy: the `cortex` command sends the run's requests through HTTPS_PROXY /
// HTTP_PROXY (upper or lower case) unless NO_PROXY names the endpoint's host, and an unreachable
// proxy is one line naming it (exit 3), never a hang or a stack.

const REPO = resolve(__dirname, '..', '..');

describe('cortex behind a forward proxy', function () {
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
        aggregator: message('Hello from the plan.'),
      }),
    );
    proxy = await startForwardProxy();
    config = join(mkdtempSync(join(tmpdir(), 'cortex-proxy-')), 'config.json');
    writeFileSync(config, JSON.stringify({ 'cortex.llm.baseUrl': server.baseUrl, 'cortex.llm.model': 'scripted-model', 'cortex.llm.maxRetries': 0 }));
  });
  after(async () => {
    await server?.close();
    await proxy?.close();
  });

  const endpointHost = () => new URL(server.baseUrl).host;
  const args = () => ['run', '--workspace', tempWorkspace(), '--config', config, 'Say hello'];

  for (const name of ['HTTP_PROXY', 'http_proxy']) {
    it(`sends every request of the run through ${name}`, async () => {
      const before = proxy.targets().length;
      const result = await runCortexCommand(args(), cleanProxyEnv({ [name]: proxy.url }));
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Hello from the plan\./);
      const seen = proxy.targets().slice(before);
      assert.ok(seen.length >= 1 && seen.every((target) => target === endpointHost()), `proxy saw ${JSON.stringify(seen)}`);
      assert.equal(server.chatRequests().length >= 3, true);
    });
  }

  it('goes around the proxy for a host NO_PROXY names', async () => {
    const before = proxy.targets().length;
    const result = await runCortexCommand(args(), cleanProxyEnv({ HTTP_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' }));
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(proxy.targets().slice(before), []);
  });

  it('an unreachable proxy is one line naming it, exit 3', async () => {
    const dead = 'http://user:secret@127.0.0.1:9';
    const result = await runCortexCommand(args(), cleanProxyEnv({ HTTP_PROXY: dead }));
    assert.equal(result.code, 3, result.stderr);
    assert.match(result.stderr, /through the proxy http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)/);
    assert.doesNotMatch(result.stderr, /secret/, 'the proxy password is not printed');
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  });

  it('reads the proxy variables as Node does: scheme, case, NO_PROXY hosts, suffixes, ports and *', () => {
    const env = { HTTPS_PROXY: 'http://p:3128', http_proxy: 'http://q:8080', NO_PROXY: '.internal.example, build-7:8443' };
    assert.equal(proxyFor('https://api.example.com/v1', env), 'http://p:3128');
    assert.equal(proxyFor('http://llm.local/v1', env), 'http://q:8080');
    assert.equal(proxyFor('https://llm.internal.example/v1', env), undefined);
    assert.equal(proxyFor('https://build-7:8443/v1', env), undefined);
    assert.equal(proxyFor('https://build-7/v1', env), 'http://p:3128');
    assert.equal(proxyFor('https://x/v1', { ...env, no_proxy: '*', NO_PROXY: '' }), undefined);
    assert.equal(proxyFor('not a url', env), undefined);
  });
});
