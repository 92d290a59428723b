import assert from 'node:assert/strict';
import { ContextBudget } from '../../../src/core/context/contextBudget';
import { isContextOverflow, overflowFacts } from '../../../src/core/context/contextOverflow';
import { defaultContextWindow, DEFAULT_WINDOW_TOKENS, knownContextWindow } from '../../../src/core/context/modelWindows';
import { TokenCalibration } from '../../../src/core/context/tokenCalibration';
import { classifyLlmFailure, type FailureFacts } from '../../../src/core/llm/failoverPolicy';
import { LlmError } from '../../../src/core/llm/llmTypes';

describe('context budget (docs/design.md, “Context budget and memory”)', () => {
  describe('model windows', () => {
    it('knows common models by their family, ignoring provider prefixes and tags', () => {
      assert.equal(knownContextWindow('gpt-4o-mini'), 128_000);
      assert.equal(knownContextWindow('openai/gpt-4o-2024-08-06'), 128_000);
      assert.equal(knownContextWindow('gpt-4.1-mini'), 1_047_576);
      assert.equal(knownContextWindow('gpt-4'), 8_192);
      assert.equal(knownContextWindow('qwen2.5:7b'), 32_768);
      assert.equal(knownContextWindow('claude-3-5-sonnet'), 200_000);
    });

    it('falls back to 128,000 for an unknown model', () => {
      assert.equal(knownContextWindow('my-local-model'), undefined);
      assert.equal(defaultContextWindow('my-local-model'), DEFAULT_WINDOW_TOKENS);
      assert.equal(DEFAULT_WINDOW_TOKENS, 128_000);
    });
  });

  describe('calibration from reported usage', () => {
    it('learns reported ÷ counted per model, smoothed', () => {
      const c = new TokenCalibration();
      assert.equal(c.ratio('m'), 1);
      assert.equal(c.observe('m', 1000, 1200), true);
      assert.equal(c.ratio('m'), 1.2);
      c.observe('m', 1000, 1000);
      assert.ok(Math.abs(c.ratio('m') - (1.2 + 0.3 * (1.0 - 1.2))) < 1e-9, String(c.ratio('m')));
      assert.equal(c.ratio('other'), 1, 'per model');
      assert.equal(c.estimate('m', 1000), Math.ceil(1000 * c.ratio('m')));
    });

    it('ignores tiny prompts and ratios no tokenizer difference explains (placeholder usage)', () => {
      const c = new TokenCalibration();
      assert.equal(c.observe('m', 50, 100), false);
      assert.equal(c.observe('m', 5000, 10), false);
      assert.equal(c.observe('m', 1000, 0), false);
      assert.equal(c.ratio('m'), 1);
    });

    it('keeps the ratio within 0.5…2', () => {
      const c = new TokenCalibration();
      for (let i = 0; i < 20; i++) c.observe('m', 1000, 3900);
      assert.equal(c.ratio('m'), 2);
    });
  });

  describe('ContextBudget', () => {
    it('is the window minus the reserved reply, the setting winning over the table', () => {
      assert.equal(new ContextBudget({ windowTokens: null, reserveOutputTokens: 4096 }, 'gpt-4o').limit(), 128_000 - 4096);
      assert.equal(new ContextBudget({ windowTokens: 32_000, reserveOutputTokens: 4096 }, 'gpt-4o').limit(), 32_000 - 4096);
    });

    it('compares our counts with a limit scaled by the calibration', () => {
      const budget = new ContextBudget({ windowTokens: 10_000, reserveOutputTokens: 0 }, 'm');
      budget.observeUsage('m', 1000, 1250);
      assert.equal(budget.countedLimit(), Math.floor(10_000 / 1.25));
      assert.equal(budget.estimate(1000), 1250);
    });

    it("learns the real window from a provider's overflow numbers, only ever lowering it", () => {
      const budget = new ContextBudget({ windowTokens: 32_000, reserveOutputTokens: 4096 }, 'm');
      budget.learnOverflow('m', 21_000, { limit: 20_000, actual: 21_000 });
      assert.equal(budget.window(), 20_000);
      assert.equal(budget.limit(), 20_000 - 4096);
      budget.learnOverflow('m', 21_000, { limit: 25_000, actual: 26_000 });
      assert.equal(budget.window(), 20_000, 'never raised');
    });

    it('without numbers, the refused prompt is taken as the window', () => {
      const budget = new ContextBudget({ windowTokens: 32_000, reserveOutputTokens: 1000 }, 'm');
      budget.learnOverflow('m', 18_000, {});
      assert.equal(budget.window(), 18_000);
    });
  });

  describe("a provider's context-overflow error", () => {
    const ctx = {
      baseUrl: 'http://x/v1',
      model: 'gpt-4o',
      sentStreamOptions: true,
      sentResponseFormat: false,
      requestTimeoutMs: 1000,
      streamIdleTimeoutMs: 1000,
    };
    const openAiWords =
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens (120000 in the messages, 10000 in the functions). Please reduce the length of the messages or functions.";

    it('is its own kind and never fails over (the words mention "functions")', () => {
      for (const facts of [
        { cause: 'http', phase: 'request', status: 400, message: openAiWords, code: 'context_length_exceeded', param: 'messages' },
        { cause: 'http', phase: 'request', status: 400, message: openAiWords },
        { cause: 'http', phase: 'request', status: 400, message: 'prompt is too long: 210000 tokens > 200000 maximum' },
      ] satisfies FailureFacts[]) {
        const d = classifyLlmFailure(facts, ctx);
        assert.equal(d.kind, 'context_overflow', facts.message);
        assert.equal(d.failover, false);
        assert.equal(d.transient, false);
      }
      // A 400 about tools that says nothing about length still fails over.
      assert.equal(classifyLlmFailure({ cause: 'http', phase: 'request', status: 400, message: 'tools is not supported by this model' }, ctx).failover, true);
    });

    it('gives the limit and the size when the provider says them', () => {
      assert.deepEqual(overflowFacts(openAiWords), { limit: 128_000, actual: 120_000 });
      assert.deepEqual(overflowFacts("This model's maximum context length is 20000 tokens. However, your messages resulted in 20500 tokens."), {
        limit: 20_000,
        actual: 20_500,
      });
      assert.deepEqual(overflowFacts('prompt is too long: 210000 tokens > 200000 maximum'), { limit: 200_000, actual: 210_000 });
      assert.deepEqual(overflowFacts('context window exceeded'), {});
      assert.equal(isContextOverflow(new LlmError('context_overflow', 'x', 400)), true);
      assert.equal(isContextOverflow(new LlmError('bad_request', 'x', 400)), false);
    });
  });
});
