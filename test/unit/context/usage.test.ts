import assert from 'node:assert/strict';
import { parseConfig } from '../../../src/core/config/configSchema';
import type { ChatResponse } from '../../../src/core/llm/llmTypes';
import { formatCost, formatTokenCount, usageText } from '../../../src/core/usage/formatUsage';
import { costOf, priceOf } from '../../../src/core/usage/pricing';
import { countReplyTokens, requestUsage } from '../../../src/core/usage/requestUsage';
import { RunCaps } from '../../../src/core/usage/runCaps';
import { llmRequest, logWithStep } from '../../support/runEventFixtures';

function response(extra: Partial<ChatResponse> = {}): ChatResponse {
  return {
    content: 'done: two files read',
    toolCalls: [],
    droppedToolNames: [],
    finishReason: 'stop',
    requestedModel: 'gpt-4o-mini',
    usedModel: 'gpt-4o-mini',
    attempts: [],
    notes: [],
    ...extra,
  };
}

describe('tokens and cost (docs/design.md, “Usage and cost”)', () => {
  const pricing = { 'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6, cachedInputPerMTok: 0.075 } };

  it('prices prompt, cached prompt and completion tokens per million', () => {
    assert.equal(costOf({ promptTokens: 1_000_000, completionTokens: 0 }, pricing['gpt-4o-mini']), 0.15);
    assert.equal(costOf({ promptTokens: 1_000_000, completionTokens: 1_000_000, cachedPromptTokens: 500_000 }, pricing['gpt-4o-mini']), 0.7125);
    assert.equal(
      costOf({ promptTokens: 1000, completionTokens: 0, cachedPromptTokens: 1000 }, { inputPerMTok: 2, outputPerMTok: 8 }),
      0.002,
      'cached at the input price when no cached price is set',
    );
    assert.equal(costOf({ promptTokens: 10, completionTokens: 10 }, undefined), undefined);
  });

  it('finds a model exactly, then ignoring case', () => {
    assert.equal(priceOf(pricing, 'gpt-4o-mini'), pricing['gpt-4o-mini']);
    assert.equal(priceOf(pricing, 'GPT-4o-Mini'), pricing['gpt-4o-mini']);
    assert.equal(priceOf(pricing, 'gpt-4o'), undefined);
  });

  it('records reported usage as is, with its cost', () => {
    const usage = requestUsage(response({ usage: { promptTokens: 2000, completionTokens: 100, cachedPromptTokens: 1000 } }), 1900, pricing);
    assert.deepEqual(usage, {
      promptTokens: 2000,
      completionTokens: 100,
      cachedPromptTokens: 1000,
      cost: costOf({ promptTokens: 2000, completionTokens: 100, cachedPromptTokens: 1000 }, pricing['gpt-4o-mini']),
    });
  });

  it('counts with the tokenizer, marked estimated, when the endpoint reported nothing', () => {
    const reply = response({
      toolCalls: [
        {
          id: 'c',
          providerId: true,
          index: 0,
          name: 'read_file',
          rawArguments: '{"path":"a.ts"}',
          decoded: { ok: true, value: { path: 'a.ts' }, doubleEncoded: false },
          isComplete: true,
          finishReason: 'tool_calls',
        },
      ],
    });
    const usage = requestUsage(reply, 1234, pricing);
    assert.equal(usage.estimated, true);
    assert.equal(usage.promptTokens, 1234);
    assert.equal(usage.completionTokens, countReplyTokens(reply));
    assert.ok(usage.completionTokens > 5);
    assert.ok(usage.cost! > 0);
    assert.equal(requestUsage(response({ usedModel: 'unpriced' }), 10, pricing).cost, undefined);
  });

  it('adds usage up per step and per run in the reducer, estimated once any part was', () => {
    const log = logWithStep();
    log.append(llmRequest({ purpose: 'planner', usage: { promptTokens: 100, completionTokens: 10, cost: 0.5 } }));
    log.append(llmRequest({ purpose: 'executor', stepId: 's1', usage: { promptTokens: 200, completionTokens: 20, cachedPromptTokens: 50, cost: 0.25 } }));
    log.append(llmRequest({ purpose: 'compact', stepId: 's1', usage: { promptTokens: 30, completionTokens: 3, estimated: true } }));
    assert.deepEqual(log.state.usage, { promptTokens: 330, completionTokens: 33, cost: 0.75, cachedPromptTokens: 50, estimated: true });
    assert.deepEqual(log.state.steps.get('s1')!.usage, { promptTokens: 230, completionTokens: 23, cachedPromptTokens: 50, cost: 0.25, estimated: true });
  });

  it('caps: tokens and cost, null = none', () => {
    const caps = new RunCaps(parseConfig({ 'cortex.limits.maxRunTokens': 1000, 'cortex.limits.maxRunCost': 0.5 }));
    assert.equal(caps.exceeded({ promptTokens: 900, completionTokens: 99, cost: 0.1 }), undefined);
    assert.match(caps.exceeded({ promptTokens: 900, completionTokens: 100 })!, /the run used 1,000 tokens, reaching cortex.limits.maxRunTokens \(1,000\)/);
    assert.match(caps.exceeded({ promptTokens: 1, completionTokens: 1, cost: 0.5 })!, /cost about \$0.500, reaching cortex.limits.maxRunCost \(\$0.500\)/);
    assert.equal(new RunCaps(parseConfig({})).exceeded({ promptTokens: 1e12, completionTokens: 1e12, cost: 1e9 }), undefined);
  });

  it('warns when the cost cap cannot see a model without a price', () => {
    const config = parseConfig({
      'cortex.limits.maxRunCost': 1,
      'cortex.llm.model': 'a',
      'cortex.llm.fallbackModels': ['b'],
      'cortex.llm.pricing': { a: { inputPerMTok: 1, outputPerMTok: 1 } },
    });
    assert.match(new RunCaps(config).unpricedWarning(config)!, /no price for b/);
    const none = parseConfig({});
    assert.equal(new RunCaps(none).unpricedWarning(none), undefined);
  });

  it('writes usage for people', () => {
    assert.equal(formatTokenCount(950), '950');
    assert.equal(formatTokenCount(12_345), '12k');
    assert.equal(formatTokenCount(1234), '1.2k');
    assert.equal(formatCost(0.0012345), '$0.0012');
    assert.equal(formatCost(1.5), '$1.500');
    assert.equal(usageText({ promptTokens: 11_000, completionTokens: 1300, cost: 0.012 }), '12k tokens (11k in, 1.3k out), $0.012');
    assert.equal(usageText({ promptTokens: 100, completionTokens: 5, estimated: true }), '~105 tokens (100 in, 5 out) (estimated)');
  });

  it('settings: pricing, caps, window and reserve are validated', () => {
    assert.throws(() => parseConfig({ 'cortex.llm.pricing': { m: { inputPerMTok: -1, outputPerMTok: 1 } } }), /cortex.llm.pricing/);
    assert.throws(() => parseConfig({ 'cortex.llm.pricing': { m: { input: 1 } } }), /cortex.llm.pricing/);
    assert.throws(() => parseConfig({ 'cortex.limits.maxRunCost': 0 }), /cortex.limits.maxRunCost/);
    assert.throws(() => parseConfig({ 'cortex.limits.maxRunTokens': 1.5 }), /cortex.limits.maxRunTokens/);
    assert.throws(
      () => parseConfig({ 'cortex.context.windowTokens': 8000, 'cortex.context.reserveOutputTokens': 8000 }),
      /cortex.context.reserveOutputTokens: must leave at least 256 tokens of cortex.context.windowTokens \(8000\)/,
    );
    assert.throws(() => parseConfig({ 'cortex.memory.searchLimit': 51 }), /cortex.memory.searchLimit/);
    const config = parseConfig({});
    assert.equal(config['cortex.context.windowTokens'], null);
    assert.equal(config['cortex.context.reserveOutputTokens'], 4096);
    assert.equal(config['cortex.memory.searchLimit'], 5);
    assert.deepEqual(config['cortex.llm.pricing'], {});
    assert.equal(config['cortex.limits.maxRunTokens'], null);
    assert.equal(config['cortex.limits.maxRunCost'], null);
  });
});
