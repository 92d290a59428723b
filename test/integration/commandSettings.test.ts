import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sanitizedPath } from '../../src/core/sandbox/commandEnvironment';
import { eventsOf, runAgainst } from '../support/agentHarness';
import { call, json, message, route, sequence, toolCalls, toolMessages } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';

// The run_command settings reach the tool through the run (not only the tool's own defaults), and
// the run says once when commands would run without a sandbox.
describe('agent run: command execution settings', () => {
  const server = useScriptedServer();
  const oneCommand = (command: string, check: (output: string) => void) =>
    route({
      planner: json({ title: 't', steps: ['Run the command'], dependencies: {} }),
      executor: sequence(toolCalls(call('run_command', { command })), (req) => {
        check(toolMessages(req)[0].content);
        return message('ran');
      }),
      aggregator: message('done'),
    });

  it('passes cortex.execution.envPassthrough to a command, and nothing else from the environment', async () => {
    process.env.CORTEX_TEST_PASSED = 'visible-value';
    process.env.CORTEX_TEST_SECRET = 'secret-value';
    try {
      let output = '';
      server().setHandler(oneCommand('printenv', (text) => (output = text)));
      const { result } = await runAgainst(server(), {
        settings: { 'cortex.execution.envPassthrough': ['CORTEX_TEST_PASSED'], 'cortex.policy.tools': { run_command: 'allow' } },
        onApproval: (request, broker) =>
          broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision: 'approve' }),
      });
      assert.equal(result.status, 'completed', result.error);
      assert.match(output, /CORTEX_TEST_PASSED=visible-value/);
      assert.doesNotMatch(output, /secret-value/);
    } finally {
      delete process.env.CORTEX_TEST_PASSED;
      delete process.env.CORTEX_TEST_SECRET;
    }
  });

  it('in the sandbox, a tool installed under the home folder runs while its keys and the cortex.sandbox.hiddenPaths entries read as missing or empty', async () => {
    const saved = { ...process.env };
    const home = mkdtempSync(path.join(existsSync('/var/tmp') ? '/var/tmp' : os.homedir(), 'cortex-run-home-'));
    try {
      mkdirSync(path.join(home, '.local/bin'), { recursive: true });
      writeFileSync(path.join(home, '.local/bin/mytool'), '#!/bin/sh\necho mytool-ran\n', { mode: 0o755 });
      mkdirSync(path.join(home, '.ssh'));
      writeFileSync(path.join(home, '.ssh/id_rsa'), 'PRIVATE-KEY-run-test');
      writeFileSync(path.join(home, 'wallet.txt'), 'wallet-run-test');
      process.env.HOME = home;
      process.env.PATH = `${path.join(home, '.local/bin')}:${process.env.PATH}`;
      let output = '';
      server().setHandler(oneCommand(`mytool && cat ${home}/.ssh/id_rsa ${home}/wallet.txt; echo end`, (text) => (output = text)));
      const { result } = await runAgainst(server(), {
        settings: { 'cortex.sandbox.mode': 'required', 'cortex.sandbox.hiddenPaths': ['~/wallet.txt'], 'cortex.policy.tools': { run_command: 'allow' } },
        onApproval: (request, broker) =>
          broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision: 'approve' }),
      });
      assert.equal(result.status, 'completed', result.error);
      assert.match(output, /mytool-ran/);
      assert.match(output, /id_rsa: No such file or directory/);
      assert.match(output, /end/);
      assert.doesNotMatch(output, /run-test/);
    } finally {
      process.env = saved;
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("a command gets the user's PATH as it is, sandboxed or not: nothing is put in front", async () => {
    const saved = process.env.PATH;
    process.env.PATH = `/opt/user-node-20/bin:${saved}`;
    try {
      for (const mode of ['required', 'off']) {
        let output = '';
        server().setHandler(oneCommand('printenv PATH', (text) => (output = text)));
        const { result } = await runAgainst(server(), {
          settings: { 'cortex.sandbox.mode': mode, 'cortex.policy.tools': { run_command: 'allow' } },
          onApproval: (request, broker) =>
            broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision: 'approve' }),
        });
        assert.equal(result.status, 'completed', result.error);
        // As it is, scrubbed as documented: relative and repeated entries dropped, nothing added.
        assert.equal(output.split('\n')[0], sanitizedPath(process.env.PATH), mode);
        assert.ok(output.startsWith('/opt/user-node-20/bin:'), output);
      }
    } finally {
      process.env.PATH = saved;
    }
  });

  it('says once, at the start, that commands run unsandboxed when cortex.sandbox.mode is off', async () => {
    server().setHandler(route({ planner: json({ title: 't', steps: ['Say hi'], dependencies: {} }), executor: message('hi'), aggregator: message('done') }));
    const { events } = await runAgainst(server(), { settings: { 'cortex.sandbox.mode': 'off' } });
    const notices = eventsOf(events, 'log').filter((e) => e.level === 'warn' && /without a sandbox/.test(e.message));
    assert.equal(notices.length, 1);
    assert.match(notices[0].message, /cortex\.sandbox\.mode is "off"/);
  });

  it('says nothing about the sandbox when bubblewrap sandboxes the commands', async () => {
    server().setHandler(route({ planner: json({ title: 't', steps: ['Say hi'], dependencies: {} }), executor: message('hi'), aggregator: message('done') }));
    const { events } = await runAgainst(server(), { settings: { 'cortex.sandbox.mode': 'required' } });
    assert.deepEqual(
      eventsOf(events, 'log')
        .filter((e) => /sandbox/.test(e.message))
        .map((e) => e.message),
      [],
    );
  });
});
