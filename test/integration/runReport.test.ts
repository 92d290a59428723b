import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runReportText } from '../../src/core/report/runReport';
import { runAgainst } from '../support/agentHarness';
import { call, json, message, route, toolMessages } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';

// The report another agent gets from Cortex (docs/design.md, “Cortex as a tool of other agents”),
// from a real run through the scripted endpoint: the plan, each step's verdict with its evidence,
// the changed files, the failures and the trace.

describe('run report for a calling agent', () => {
  let server: ScriptedServer;
  afterEach(async () => {
    await server?.close();
  });

  it('lists verdicts with evidence, changed files and failures', async function () {
    this.timeout(30_000);
    server = await startScriptedServer();
    server.setHandler(
      route({
        planner: json({
          title: 'Notes',
          steps: [
            { description: 'Write notes.txt', expects: [{ changed: 'notes.txt' }] },
            { description: 'Write todo.txt', expects: [{ changed: 'todo.txt' }] },
          ],
          dependencies: {},
        }),
        executor: (req) => {
          const prompt = JSON.stringify(req.body.messages);
          if (prompt.includes('Write notes.txt'))
            return toolMessages(req).length
              ? message('notes.txt written')
              : { kind: 'message', toolCalls: [call('write_file', { path: 'notes.txt', content: 'a\nb\n' })] };
          return message('todo.txt written'); // a claim with nothing behind it
        },
        replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {}, reason: 'cannot' }),
        aggregator: message('Wrote notes.txt; todo.txt is missing.'),
      }),
    );
    const checkpointsDir = join(mkdtempSync(join(tmpdir(), 'cortex-report-')), 'checkpoints');
    const { result, log } = await runAgainst(server, { checkpointsDir, settings: { 'cortex.execution.maxParallelSteps': 1 } });
    const text = runReportText({
      state: log.state,
      status: result.status,
      answer: result.answer,
      error: result.error,
      traceFile: '/tmp/t.jsonl',
      openHint: 'open it',
    });
    const lines = text.split('\n');
    assert.match(lines[0], new RegExp(`^Cortex run ${log.state.runId} failed: 2 step\\(s\\) in the final plan; proof: 1 verified, 0 unverified, 1 failed\\.$`));
    assert.ok(lines.includes('Plan: Notes'), text);
    assert.ok(lines.includes('- s1 [verified] Write notes.txt'), text);
    assert.ok(lines.includes('  evidence: 2/2 checks passed — changed notes.txt; notes.txt written'), text);
    assert.ok(lines.includes('- s2 [failed] Write todo.txt'), text);
    assert.match(
      text,
      /\n {2}evidence: 0\/2 checks passed — changed todo\.txt: no file matching todo\.txt was created.*; todo\.txt written: this step recorded no change/,
    );
    assert.ok(lines.includes('Changed files: notes.txt (created +2 -0)'), text);
    assert.match(text, /\nFailures:\n- s2: postcondition_failed: changed todo\.txt.*\n- run: 1 of 2 steps did not complete\. Write todo\.txt was blocked/);
    assert.match(text, /\nAnswer: Wrote notes\.txt; todo\.txt is missing\.\n/);
    assert.match(text, /\nTrace: \/tmp\/t\.jsonl \(open it\)$/);
  });
});
