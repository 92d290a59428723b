import assert from 'node:assert/strict';
import { z } from 'zod';
import { planBatch } from '../../../src/core/agent/batchPlan';
import { parseConfig } from '../../../src/core/config/configSchema';
import { DEFAULT_PROTECTED_PATHS } from '../../../src/core/files/protectedPaths';
import { decodeArgumentText, summarizeDecoding } from '../../../src/core/llm/argumentDecoding';
import type { AccumulatedToolCall, LlmClient } from '../../../src/core/llm/llmTypes';
import { callProtection } from '../../../src/core/tools/callProtection';
import { prepareToolCalls } from '../../../src/core/tools/toolPipeline';
import type { ToolDefinition } from '../../../src/core/tools/toolTypes';
import { createBuiltinRegistry } from '../../../src/core/tools/workspace/builtinTools';
import { fakeMcpTool } from '../mcp/fakeMcpTool';

// Planning a batch asks what a tool declares (docs/design.md, “Running a batch of calls”, and “The
// core's inner layers” on tool capabilities): a repeat is reused when the tool is declared
// idempotent, whatever its kind or origin; the MCP audit is written for tools of MCP origin only.

const noLlm: LlmClient = { chat: (request) => Promise.reject(new Error(`no LLM request expected, got purpose ${request.purpose}`)) };
const config = parseConfig({ 'cortex.repair.toolNameAttempts': 0, 'cortex.repair.toolCallAttempts': 0, 'cortex.policy.tools': { '*': 'allow' } });

function call(index: number, name: string, args: Record<string, unknown>): AccumulatedToolCall {
  const rawArguments = JSON.stringify(args);
  const decoding = decodeArgumentText(rawArguments, { cutOff: false });
  const { note: _note, ...summary } = summarizeDecoding(decoding, false);
  return { id: `call_${index}`, providerId: true, index, name, rawArguments, decoded: decoding.decoded, ...summary, finishReason: 'tool_calls' };
}

/** A built-in-looking tool that sets a value: a write, idempotent or not as declared. */
function setter(name: string, idempotent: boolean): ToolDefinition {
  return {
    name,
    description: 'sets a value',
    schema: z.strictObject({ value: z.string() }),
    kind: 'write',
    readOnly: false,
    origin: { kind: 'builtin' },
    idempotent,
    changes: 'files',
    run: () => Promise.resolve('set'),
  };
}

/** Two identical calls of each named tool, prepared by the real pipeline and planned. */
async function plan(extra: ToolDefinition[], names: string[], args: Record<string, unknown>) {
  const registry = createBuiltinRegistry(config, { extra });
  const calls = names.flatMap((name, i) => [call(2 * i, name, args), call(2 * i + 1, name, args)]);
  const prepared = await prepareToolCalls(calls, { registry, config, llm: noLlm, signal: new AbortController().signal, stepId: 's1' });
  const entries = await planBatch(prepared.calls, { config, trusted: true, protection: callProtection('/tmp', DEFAULT_PROTECTED_PATHS) });
  return { prepared: prepared.calls, dispositions: entries.map((entry) => `${entry.call.name} ${entry.disposition}`) };
}

describe('planning a batch asks the tool capabilities', () => {
  it('reuses the repeat of a tool declared idempotent, even a write of built-in origin; runs the repeat of one that is not', async () => {
    const { dispositions } = await plan([setter('set_same', true), setter('set_again', false)], ['set_same', 'set_again'], { value: 'x' });
    assert.deepEqual(dispositions, ['set_same run', 'set_same duplicate', 'set_again run', 'set_again run']);
  });

  it("an MCP tool's annotations are not asked: what its definition declares is", async () => {
    const annotated = { ...fakeMcpTool('srv', 'bump', { annotations: { idempotentHint: true } }), idempotent: false };
    const declared = fakeMcpTool('srv', 'get', { annotations: { idempotentHint: true } });
    const { dispositions, prepared } = await plan([annotated, declared], ['srv_bump', 'srv_get'], { a: 1, b: 2 });
    assert.deepEqual(dispositions, ['srv_bump run', 'srv_bump run', 'srv_get run', 'srv_get duplicate']);
    // The audit of an MCP call keeps its shape: server, tool, annotations.
    assert.deepEqual(prepared[0].audit.mcp, { server: 'srv', tool: 'bump', annotations: { idempotentHint: true } });
  });

  it('writes no MCP audit for a tool of another origin', async () => {
    const { prepared } = await plan([setter('set_same', true)], ['set_same'], { value: 'x' });
    assert.equal(prepared[0].audit.mcp, undefined);
  });
});
