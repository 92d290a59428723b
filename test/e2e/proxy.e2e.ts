import assert from 'node:assert/strict';
import { startForwardProxy, type ForwardProxy } from '../support/forwardProxy';
import { json, message, route } from '../support/scriptedReplies';
import { e2eEnvironment, newWorkspace, openWorkspace, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { startTask } from './support/scenario';
import { answerInput, clickNotificationButton, waitForNotification } from './support/workbench';

// Behind a company proxy in VS Code (docs/design.md, “LLM requests: retries and failover”): the
// extension's requests follow VS Code's own proxy settings (`http.proxy`), as VS Code applies them
// to every extension, so a run's LLM requests reach the endpoint through the proxy.

const INTERNAL_HOST = 'llm.cortex-e2e.internal';

describe('e2e: VS Code proxy settings', function () {
  let env: E2eEnvironment;
  let proxy: ForwardProxy;
  before(async () => {
    env = await e2eEnvironment();
    // The endpoint's name resolves only through the proxy, as a company's internal names do: a
    // request that went around the proxy could not reach it at all.
    proxy = await startForwardProxy({ hosts: { [INTERNAL_HOST]: '127.0.0.1' } });
  });
  after(async () => {
    await proxy?.close();
  });

  it("a run's LLM requests go through http.proxy", async () => {
    env.server.setHandler(
      route({
        planner: json({ title: 'Proxy', steps: ['Say hello through the proxy'], dependencies: {} }),
        executor: message('hello'),
        aggregator: message('Hello through the proxy.'),
      }),
    );
    const before = proxy.targets().length;
    const workspace = newWorkspace(env, 'proxy');
    const baseUrl = env.server.baseUrl.replace('127.0.0.1', INTERNAL_HOST);
    currentPage.page = await openWorkspace(env, workspace, { 'http.proxy': proxy.url, 'cortex.llm.baseUrl': baseUrl });
    await startTask(currentPage.page, 'Say hello through the proxy');
    // Not a loopback endpoint, so a key is asked for; the typed task then goes on.
    await clickNotificationButton(currentPage.page, /Cortex has no API key/, 'Set API key');
    await answerInput(currentPage.page, 'sk-e2e-proxy', 'Cortex: Set API key');
    await waitForNotification(currentPage.page, /Cortex finished: Hello through the proxy\./, 60_000);
    const seen = proxy.targets().slice(before);
    const endpoint = new URL(baseUrl).host;
    // The run completed although only the proxy can resolve the endpoint's name; the proxy saw
    // only the endpoint (as requests, or as a CONNECT tunnel several requests share).
    assert.ok(seen.length >= 1 && seen.every((target) => target === endpoint), `the proxy saw ${JSON.stringify(seen)}`);
  });
});
