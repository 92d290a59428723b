import assert from 'node:assert/strict';
import type { Logger } from '../../../src/core/ports';
import { GREETED_KEY, greetOnFirstStart, type GreetingPorts } from '../../../src/host/welcome';

// The first-start greeting over an in-memory globalState and a recorded "open walkthrough" call.

class MapMemento {
  readonly values = new Map<string, unknown>();
  get(key: string): unknown {
    return this.values.get(key);
  }
  update(key: string, value: unknown): Promise<void> {
    this.values.set(key, value);
    return Promise.resolve();
  }
}

function ports(overrides: Partial<GreetingPorts> = {}) {
  const opened: string[] = [];
  const lines: string[] = [];
  const logger: Logger = { trace: () => {}, debug: () => {}, info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
  const state = new MapMemento();
  const value: GreetingPorts = {
    state,
    walkthroughsOpenOnInstall: () => true,
    openWalkthrough: (id) => {
      opened.push(id);
      return Promise.resolve();
    },
    logger,
    ...overrides,
  };
  return { ports: value, state, opened, lines };
}

describe('greetOnFirstStart', () => {
  it('opens <publisher>.<name>#cortex.gettingStarted on the first start only', async () => {
    const { ports: p, opened, state } = ports();
    assert.equal(await greetOnFirstStart('cortex-dev.cortex-agent', p), 'opened');
    assert.deepEqual(opened, ['cortex-dev.cortex-agent#cortex.gettingStarted']);
    assert.equal(state.get(GREETED_KEY), true);
    assert.equal(await greetOnFirstStart('cortex-dev.cortex-agent', p), 'already-greeted');
    assert.deepEqual(opened, ['cortex-dev.cortex-agent#cortex.gettingStarted'], 'not reopened');
  });

  it('respects workbench.welcomePage.walkthroughs.openOnInstall = false, and still counts the first start', async () => {
    const { ports: p, opened, state, lines } = ports({ walkthroughsOpenOnInstall: () => false });
    assert.equal(await greetOnFirstStart('cortex-dev.cortex-agent', p), 'turned-off');
    assert.deepEqual(opened, []);
    assert.equal(state.get(GREETED_KEY), true);
    assert.match(lines.join('\n'), /openOnInstall is off/);
  });

  it('marks the profile greeted before opening, so a failure is logged and never retried', async () => {
    const {
      ports: p,
      state,
      lines,
    } = ports({
      openWalkthrough: () => Promise.reject(new Error('command not found')),
    });
    assert.equal(await greetOnFirstStart('cortex-dev.cortex-agent', p), 'failed');
    assert.equal(state.get(GREETED_KEY), true);
    assert.match(lines.join('\n'), /Could not open the walkthrough cortex-dev\.cortex-agent#cortex\.gettingStarted: command not found/);
    assert.equal(await greetOnFirstStart('cortex-dev.cortex-agent', p), 'already-greeted');
  });
});
