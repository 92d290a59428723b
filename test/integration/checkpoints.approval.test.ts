import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventsOf, runAgainst, tempWorkspace } from '../support/agentHarness';
import { byStep, call, json, message, route, toolCalls } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';

// The approval of a write or an edit shows the diff it would make (docs/design.md, “Checkpoints and revert”): computed
// when approval is asked, from the exact arguments its hash binds, against the file as it is then.

describe('approvals of writes and edits carry their diff', function () {
  this.timeout(30_000);
  const server = useScriptedServer();

  it('write_file and edit_file waiting for approval record the unified diff they would make', async () => {
    server().setHandler(
      route({
        planner: json({ title: 'Edit', steps: ['Change the config'], dependencies: {} }),
        executor: byStep({
          'Change the config': [
            toolCalls(
              call('edit_file', { path: 'config.ini', old_text: 'debug = false', new_text: 'debug = true' }),
              call('write_file', { path: 'NOTES.md', content: '# Notes\nfirst\n' }),
            ),
            message('changed'),
          ],
        }),
        aggregator: message('done'),
      }),
    );
    const workspace = tempWorkspace();
    writeFileSync(join(workspace, 'config.ini'), '[app]\nname = demo\ndebug = false\n');
    const { result, events } = await runAgainst(server(), {
      workspace,
      settings: { 'cortex.policy.tools': { edit_file: 'confirm', write_file: 'confirm' } },
      onApproval: (request, broker) =>
        void broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision: 'approve', source: 'test' }),
    });
    assert.equal(result.status, 'completed', result.error);
    const asked = eventsOf(events, 'tool_call_awaiting_approval');
    assert.equal(asked.length, 2);
    const [edit, write] = asked;
    assert.equal(edit.approval.diff, '--- a/config.ini\n+++ b/config.ini\n@@ -1,3 +1,3 @@\n [app]\n name = demo\n-debug = false\n+debug = true\n');
    assert.equal(write.approval.diff, '--- /dev/null\n+++ b/NOTES.md\n@@ -0,0 +1,2 @@\n+# Notes\n+first\n');
    // The folded call keeps it, so the panel's approval card can show it.
    const calls = result.snapshot.steps[0].toolCalls;
    assert.match(calls[0].approval?.diff ?? '', /\+debug = true/);
  });
});
