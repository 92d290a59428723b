import assert from 'node:assert/strict';
import { build } from 'esbuild';
import { join } from 'node:path';
import type { Logger } from '../../../src/core/ports';
import type { AgentHost } from '../../../src/host/agentHost';
import { LazyAgentHost } from '../../../src/host/lazyAgentHost';

const root = join(__dirname, '..', '..', '..');

function recordingLogger(lines: string[]): Logger {
  return { trace: () => {}, debug: () => {}, info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
}

function fakeHost(onDispose: () => Promise<void> | void): AgentHost {
  const unused = () => {
    throw new Error('not used here');
  };
  return {
    runTask: unused,
    showPanel: unused,
    cancelRun: unused,
    openTrace: unused,
    restorePanel: unused,
    showMcpServers: unused,
    manageApprovals: unused,
    resumeRun: unused,
    retryRun: unused,
    runPlanForTool: unused,
    checkRunForTool: unused,
    openRun: unused,
    get home(): never {
      return unused();
    },
    dispose: () => Promise.resolve(onDispose()),
  };
}

describe('LazyAgentHost', () => {
  it('creates the host on first use only, and logs how long loading took', () => {
    let created = 0;
    const lines: string[] = [];
    let clock = 1000;
    const lazy = new LazyAgentHost(
      () => {
        created++;
        clock += 120;
        return fakeHost(() => {});
      },
      recordingLogger(lines),
      () => clock,
    );
    assert.equal(lazy.loaded, false);
    assert.equal(created, 0, 'nothing loaded before the first use');
    const host = lazy.get();
    assert.equal(lazy.get(), host);
    assert.equal(created, 1);
    assert.equal(lazy.loaded, true);
    assert.deepEqual(lines, ['Agent core loaded in 120 ms.']);
  });

  it('reports a load failure clearly, logs its stack and tries again next time', () => {
    let attempts = 0;
    const lines: string[] = [];
    const lazy = new LazyAgentHost(() => {
      attempts++;
      if (attempts === 1) throw new Error("Cannot find module './agentHost'");
      return fakeHost(() => {});
    }, recordingLogger(lines));
    assert.throws(() => lazy.get(), /^Error: Cortex could not load its agent core: Cannot find module '\.\/agentHost'$/);
    assert.match(lines[0], /Loading the agent core failed: Error: Cannot find module/);
    assert.ok(lazy.get());
    assert.equal(attempts, 2);
  });

  it('disposes the host it created and refuses to load after disposal', async () => {
    let disposed = 0;
    const lazy = new LazyAgentHost(() => fakeHost(() => void disposed++), recordingLogger([]));
    await lazy.dispose();
    assert.equal(disposed, 0, 'nothing to dispose before a load');
    assert.throws(() => lazy.get(), /shutting down/);
    const loaded = new LazyAgentHost(() => fakeHost(() => void disposed++), recordingLogger([]));
    loaded.get();
    await loaded.dispose();
    assert.equal(disposed, 1);
  });

  it("waits for the host's runs to write their traces, once however often it is disposed", async () => {
    let finish!: () => void;
    let disposed = 0;
    const loaded = new LazyAgentHost(
      () =>
        fakeHost(() => {
          disposed++;
          return new Promise<void>((resolve) => (finish = resolve));
        }),
      recordingLogger([]),
    );
    loaded.get();
    let stopped = false;
    const first = loaded.dispose().then(() => (stopped = true));
    const second = loaded.dispose();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(stopped, false, 'still writing');
    finish();
    await Promise.all([first, second]);
    assert.equal(stopped, true);
    assert.equal(disposed, 1);
  });
});

describe('activation bundle', () => {
  it('compiles none of the agent core, the LLM client, zod or the panel code (they load with ./agentHost)', async function () {
    this.timeout(30_000);
    const result = await build({
      entryPoints: [join(root, 'src', 'extension.ts')],
      absWorkingDir: root,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      external: ['vscode', './agentHost'],
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    const heavy = inputs.filter((file) =>
      /node_modules\/(zod|openai)\/|src\/core\/(agent|llm|plan|tools|config)\/|src\/panel\/dagPanel|src\/protocol\//.test(file),
    );
    assert.deepEqual(heavy, [], `activation pulls in: ${heavy.join(', ')}`);
    assert.ok(inputs.includes('src/host/activate.ts'), inputs.join(', '));
    assert.match(result.outputFiles[0].text, /require\("\.\/agentHost"\)/, 'the agent host stays a separate require');
  });
});
