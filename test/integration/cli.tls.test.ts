import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { tempWorkspace } from '../support/agentHarness';
import { runCortexCommand } from '../support/cortexCommand';
import { startForwardProxy, type ForwardProxy } from '../support/forwardProxy';
import { json, message, route } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';
import { startTlsFront, type TlsFront } from '../support/tlsFront';

// An HTTPS endpoint whose certificate a company CA signed: the `cortex` command trusts the CAs in
// NODE_EXTRA_CA_CERTS (through the openai SDK's own transport), also through an HTTPS_PROXY tunnel,
// and without them says in one line that the certificate is not trusted (exit 3).

const REPO = resolve(__dirname, '..', '..');

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, OPENAI_API_KEY: 'sk-test' };
  for (const name of Object.keys(env))
    if (/^(https?|no|all)_proxy$/i.test(name) || name === 'NODE_USE_ENV_PROXY' || name === 'NODE_EXTRA_CA_CERTS') delete env[name];
  return { ...env, ...extra };
}

describe('cortex against an HTTPS endpoint with a company CA', function () {
  this.timeout(90_000);
  let server: ScriptedServer;
  let front: TlsFront;
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
    );
    front = await startTlsFront(server.baseUrl);
    proxy = await startForwardProxy();
    config = join(mkdtempSync(join(tmpdir(), 'cortex-tls-config-')), 'config.json');
    writeFileSync(config, JSON.stringify({ 'cortex.llm.baseUrl': front.baseUrl, 'cortex.llm.model': 'scripted-model', 'cortex.llm.maxRetries': 0 }));
  });
  after(async () => {
    await front?.close();
    await server?.close();
    await proxy?.close();
  });

  const args = () => ['run', '--workspace', tempWorkspace(), '--config', config, 'Say hello'];

  it('trusts the CA in NODE_EXTRA_CA_CERTS: every request of the run is answered over TLS', async () => {
    const before = server.chatRequests().length;
    const result = await runCortexCommand(args(), cleanEnv({ NODE_EXTRA_CA_CERTS: front.caFile }));
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Hello over TLS\./);
    assert.equal(server.chatRequests().length - before, 3, 'planner, executor and aggregator');
    assert.ok(
      server
        .chatRequests()
        .slice(before)
        .some((r) => r.stream),
      'streamed requests too',
    );
  });

  it('through an HTTPS_PROXY tunnel as well', async () => {
    const seen = proxy.targets().length;
    const result = await runCortexCommand(args(), cleanEnv({ NODE_EXTRA_CA_CERTS: front.caFile, HTTPS_PROXY: proxy.url }));
    assert.equal(result.code, 0, result.stderr);
    const targets = proxy.targets().slice(seen);
    assert.ok(targets.length >= 1 && targets.every((t) => t === new URL(front.baseUrl).host), `proxy saw ${JSON.stringify(targets)}`);
  });

  it('without the CA: one line saying the certificate is not trusted and naming NODE_EXTRA_CA_CERTS, exit 3, no stack', async () => {
    const result = await runCortexCommand(args(), cleanEnv({}));
    assert.equal(result.code, 3, result.stderr);
    assert.match(
      result.stderr,
      /presented a certificate Cortex does not trust \([A-Z_]+\)\. If your organisation's own CA signed it, set NODE_EXTRA_CA_CERTS to that CA's PEM file\./,
    );
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  });
});
