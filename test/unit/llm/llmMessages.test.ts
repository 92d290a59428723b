import assert from 'node:assert/strict';
import { CLI_LLM_HINTS } from '../../../src/cli/cliHints';
import { classifyLlmFailure, endsTheRun, failoverNotice, type FailureContext, type FailureFacts } from '../../../src/core/llm/failoverPolicy';
import { EDITOR_LLM_HINTS } from '../../../src/core/llm/llmHints';

// The words of LLM errors: remedies the host's user can reach, and clean punctuation whatever the
// endpoint says.

const ctx: FailureContext = {
  baseUrl: 'http://127.0.0.1:11434/v1',
  model: 'm',
  sentStreamOptions: true,
  sentResponseFormat: true,
  requestTimeoutMs: 5_000,
  streamIdleTimeoutMs: 60_000,
};

/** Every kind of failure, each with endpoint words that end in a period (as OpenAI's do). */
function everyFailure(): FailureFacts[] {
  const said = 'The model `m` does not exist or you do not have access to it.';
  const http = [400, 401, 403, 404, 408, 409, 418, 422, 429, 500, 503, undefined].flatMap((status) => [
    { cause: 'http' as const, phase: 'request' as const, status, message: said },
    { cause: 'http' as const, phase: 'request' as const, status, message: 'tools is not supported by this model.' },
    { cause: 'http' as const, phase: 'request' as const, status, message: 'stream_options is not supported.' },
    { cause: 'http' as const, phase: 'request' as const, status, message: 'response_format json_object unsupported...' },
    { cause: 'http' as const, phase: 'request' as const, status, message: '' },
  ]);
  const other = (['request', 'stream'] as const).flatMap((phase) => [
    { cause: 'network' as const, phase, message: 'connect ECONNREFUSED.', networkCode: 'ECONNREFUSED' },
    { cause: 'network' as const, phase, message: 'socket hang up.', networkCode: 'ECONNRESET' },
    { cause: 'network' as const, phase, message: 'terminated.' },
    { cause: 'request_timeout' as const, phase, message: '' },
    { cause: 'idle_timeout' as const, phase, message: '' },
    { cause: 'no_done' as const, phase, message: 'stream ended.' },
    { cause: 'malformed' as const, phase, message: 'Unexpected token < in JSON.' },
    { cause: 'cancelled' as const, phase, message: '' },
  ]);
  return [...http, ...other];
}

describe('LLM error words', () => {
  it('never has a double period, whatever the endpoint said', () => {
    for (const hints of [EDITOR_LLM_HINTS, CLI_LLM_HINTS]) {
      for (const facts of everyFailure()) {
        const { message } = classifyLlmFailure(facts, { ...ctx, hints });
        assert.doesNotMatch(message, /(^|[^.])\.\.(?!\.)/, message);
        assert.match(message, /[.)]$/, message);
      }
    }
  });

  it('the CLI names shell remedies, never an editor command', () => {
    for (const facts of everyFailure()) {
      const { message } = classifyLlmFailure(facts, { ...ctx, hints: CLI_LLM_HINTS });
      assert.doesNotMatch(message, /Cortex:|Set API key'|command palette/i, message);
      assert.doesNotMatch(message, /cortex\.llm\.(baseUrl|model|fallbackModels)\b/, message);
    }
    const key = classifyLlmFailure({ cause: 'http', phase: 'request', status: 401, message: 'Incorrect API key provided.' }, { ...ctx, hints: CLI_LLM_HINTS });
    assert.equal(key.message, 'The endpoint rejected the API key (401). Set OPENAI_API_KEY to a key this endpoint accepts.');
    const model = classifyLlmFailure(
      { cause: 'http', phase: 'request', status: 404, message: 'model not found', code: 'model_not_found' },
      { ...ctx, hints: CLI_LLM_HINTS },
    );
    assert.match(model.message, /Check --model, or list other models in --fallback-model\.$/);
    const down = classifyLlmFailure({ cause: 'network', phase: 'request', message: '', networkCode: 'ECONNREFUSED' }, { ...ctx, hints: CLI_LLM_HINTS });
    assert.match(down.message, /Check --base-url and that the server is running\.$/);
    const slow = classifyLlmFailure({ cause: 'request_timeout', phase: 'request', message: '' }, { ...ctx, hints: CLI_LLM_HINTS });
    assert.match(slow.message, /\(cortex\.llm\.requestTimeoutSeconds in the --config file\)\.$/);
  });

  it('keeps the editor wording when no hints are given', () => {
    const key = classifyLlmFailure({ cause: 'http', phase: 'request', status: 401, message: 'bad key' }, ctx);
    assert.equal(key.message, "The endpoint rejected the API key (401). Run 'Cortex: Set API key' or set OPENAI_API_KEY.");
  });

  it('quotes the endpoint without its final period', () => {
    const denied = classifyLlmFailure({ cause: 'http', phase: 'request', status: 403, message: 'Project does not have access.' }, ctx);
    assert.equal(denied.message, "The endpoint refused access (403): Project does not have access. Check that the API key may use model 'm'.");
  });

  it('words a failover as one line naming the missing model, the endpoint and the model used', () => {
    assert.equal(failoverNotice([{ model: 'x', status: 404 }], 'y', 'at http://h/v1'), 'model x not found at http://h/v1 — using y');
    assert.equal(
      failoverNotice(
        [
          { model: 'x', status: 404 },
          { model: 'z', status: 400 },
        ],
        'y',
        'at http://h/v1',
      ),
      "model x not found, model z refused the request's tools (400) at http://h/v1 — using y",
    );
    // VS Code's models fail with words, not a status.
    assert.equal(
      failoverNotice([{ model: 'copilot/a', error: 'You have exceeded your quota.' }], 'copilot/b', 'in VS Code'),
      'model copilot/a failed (You have exceeded your quota.) in VS Code — using copilot/b',
    );
  });

  it('only unreachable, auth, not found and cancel end a run', () => {
    assert.deepEqual(
      ['unreachable', 'auth', 'not_found', 'cancelled', 'server', 'rate_limit', 'bad_request', 'timeout', 'stream_broken', 'bad_response', undefined].filter(
        endsTheRun,
      ),
      ['unreachable', 'auth', 'not_found', 'cancelled'],
    );
  });
});
