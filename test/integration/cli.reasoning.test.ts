import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REASONING_KEEP_CHARS } from '../../src/core/llm/reasoningText';
import { readTraceSync } from '../support/traceFile';
import { tempWorkspace } from '../support/agentHarness';
import { call, json, message, route, sequence } from '../support/scriptedReplies';
import { runCliInProcess } from '../support/inProcessCli';
import { useScriptedServer } from '../support/useScriptedServer';

// Reasoning text (`reasoning_content` of DeepSeek/Qwen/xAI, `reasoning` of OpenRouter/vLLM/Ollama)
// through `cortex run`: kept per model turn in the trace's llm_request (capped), never sent back.

const cli = (argv: string[]) => runCliInProcess(argv);

describe('cortex CLI: reasoning text', function () {
  this.timeout(30_000);
  const server = useScriptedServer();

  it('is recorded per model turn (streamed and not, either field name), capped, and never sent back to the endpoint', async () => {
    const workspace = tempWorkspace();
    writeFileSync(join(workspace, 'a.txt'), 'A');
    const long = `BEGIN-${'m'.repeat(3 * REASONING_KEEP_CHARS)}-END`;
    const laterBodies: string[] = [];
    server().setHandler(
      route({
        planner: json({ title: 't', steps: ['Read a.txt'], dependencies: {} }, { reasoning: 'PLAN-THOUGHT: one step is enough', reasoningField: 'reasoning' }),
        executor: sequence(
          { kind: 'message', reasoning: `STEP-THOUGHT-1 ${long}`, toolCalls: [call('read_file', { path: 'a.txt' })] },
          (req) => (
            laterBodies.push(JSON.stringify(req.body)),
            { kind: 'message', content: 'read it', reasoning: 'STEP-THOUGHT-2', reasoningField: 'reasoning' }
          ),
        ),
        aggregator: (req) => (laterBodies.push(JSON.stringify(req.body)), message('It says A.')),
      }),
    );
    const trace = join(tempWorkspace('cortex-reasoning-'), 'trace.jsonl');
    const result = await cli(['run', '--workspace', workspace, '--base-url', server().baseUrl, '--model', 'm', '--trace', trace, 'read a.txt']);
    assert.equal(result.code, 0, result.stderr);
    const requests = readTraceSync(trace).events.filter((e) => e.type === 'llm_request');
    const byPurpose = requests.map((e) => [e.purpose, e.type === 'llm_request' ? e.reasoning?.slice(0, 16) : undefined]);
    assert.deepEqual(byPurpose, [
      ['planner', 'PLAN-THOUGHT: on'],
      ['executor', 'STEP-THOUGHT-1 B'],
      ['executor', 'STEP-THOUGHT-2'],
      ['aggregator', undefined],
    ]);
    const capped = requests[1].type === 'llm_request' ? requests[1].reasoning! : '';
    assert.ok(capped.length < 2 * REASONING_KEEP_CHARS + 200, `kept ${capped.length} characters`);
    assert.match(capped, /^STEP-THOUGHT-1 BEGIN-m+\n\[\.\.\. \d+ characters of reasoning left out \.\.\.\]\nm+-END$/);
    assert.equal(laterBodies.length, 2);
    for (const body of laterBodies) assert.doesNotMatch(body, /THOUGHT|"reasoning(_content)?"/, 'reasoning went back to the endpoint');
  });
});
