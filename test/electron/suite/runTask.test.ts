import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { byStep, call, json, message, route, toolCalls } from '../../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../../support/scriptedServer';

// Runs inside desktop VS Code's extension host: the real extension, the real command, the real
// openai client, against the scripted server on 127.0.0.1.
describe('Cortex in desktop VS Code (@vscode/test-electron)', () => {
  let server: ScriptedServer;
  before(async () => {
    server = await startScriptedServer(
      route({
        planner: json({ title: 'Greeting', steps: ['Write hello.txt', 'Write bye.txt after hello.txt'], dependencies: { '1': [0] } }),
        executor: byStep({
          'Write hello.txt': [toolCalls(call('write_file', { path: 'hello.txt', content: 'hello' })), message('wrote hello.txt')],
          'Write bye.txt after hello.txt': [toolCalls(call('write_file', { path: 'bye.txt', content: 'bye' })), message('wrote bye.txt')],
        }),
        aggregator: message('Wrote both files.'),
      }),
    );
    const config = vscode.workspace.getConfiguration('cortex');
    await config.update('llm.baseUrl', server.baseUrl, vscode.ConfigurationTarget.Global);
    await config.update('llm.model', 'scripted-model', vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await server?.close();
  });

  it('contributes its commands', async () => {
    const commands = await vscode.commands.getCommands(true);
    for (const id of ['cortex.runTask', 'cortex.setApiKey', 'cortex.openTrace', 'cortex.showPanel', 'cortex.cancelRun']) assert.ok(commands.includes(id), id);
  });

  it('runs a task end to end: plan, steps, files in the workspace', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the test opens a workspace folder');
    await vscode.commands.executeCommand('cortex.runTask', 'Write the greeting files');
    assert.equal(readFileSync(join(folder.uri.fsPath, 'hello.txt'), 'utf8'), 'hello');
    assert.ok(existsSync(join(folder.uri.fsPath, 'bye.txt')));
    server.assertNoRejections();
    const purposes = new Set(server.requests.map((r) => r.purpose));
    assert.deepEqual([...purposes].sort(), ['aggregator', 'executor', 'planner']);
  });
});
