import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { tempWorkspace } from '../support/agentHarness';
import { runCortexCommand } from '../support/cortexCommand';
import { contentText, json, message, route } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';

// The `cortex` command follows the workspace's AGENTS.md like the extension does, and says which
// instructions files it used without --verbose (docs/design.md, “Project instructions”).

const REPO = resolve(__dirname, '..', '..');

describe('cortex run with project instructions', function () {
  this.timeout(90_000);
  let server: ScriptedServer;

  before(() => {
    const built = spawnSync(process.execPath, [join(REPO, 'scripts', 'build.mjs'), '--only=cli'], { cwd: REPO, encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
  });
  after(async () => {
    await server?.close();
  });

  it('gives AGENTS.md to the model and names it in the output', async () => {
    server = await startScriptedServer(
      route({
        planner: json({ title: 'Answer', steps: ['Say hello'], dependencies: {} }),
        executor: message('hello'),
        aggregator: message('Hello from the plan.'),
      }),
    );
    const config = join(mkdtempSync(join(tmpdir(), 'cortex-instr-cli-')), 'config.json');
    writeFileSync(config, JSON.stringify({ 'cortex.llm.baseUrl': server.baseUrl, 'cortex.llm.model': 'scripted-model', 'cortex.llm.maxRetries': 0 }));
    const workspace = tempWorkspace();
    writeFileSync(join(workspace, 'AGENTS.md'), 'Always answer in French.\n');
    const result = await runCortexCommand(['run', '--workspace', workspace, '--config', config, 'Say hello'], { ...process.env, OPENAI_API_KEY: 'sk-test' });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout + result.stderr, /info: Project instructions from AGENTS\.md/);
    const executor = server.requests.find((r) => r.purpose === 'executor')!;
    const messages = (executor.body as { messages: Array<{ content: unknown }> }).messages;
    assert.match(contentText(messages[1].content), /^<project_instructions source="repository">[\s\S]*Always answer in French\./);
  });
});
