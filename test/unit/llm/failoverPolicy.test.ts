import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { classifyLlmFailure, endsTheRun, type FailureContext, type FailureFacts } from '../../../src/core/llm/failoverPolicy';
import { describeSdkFailure } from '../../../src/core/llm/sdkFailure';

const ctx: FailureContext = {
  baseUrl: 'http://127.0.0.1:11434/v1',
  model: 'qwen2.5',
  sentStreamOptions: true,
  sentResponseFormat: true,
  requestTimeoutMs: 120_000,
  streamIdleTimeoutMs: 60_000,
};
const http = (status: number | undefined, message: string, more: Partial<FailureFacts> = {}): FailureFacts => ({
  cause: 'http',
  phase: 'request',
  status,
  message,
  ...more,
});
const decide = (facts: FailureFacts, c: Partial<FailureContext> = {}) => classifyLlmFailure(facts, { ...ctx, ...c });

describe('failoverPolicy', () => {
  describe('failover only where docs/design.md, “LLM requests: retries and failover” allows it', () => {
    it('fails over on a 404 for an unknown or unsupported model', () => {
      for (const facts of [
        http(404, 'The model `x` does not exist or you do not have access to it.', { code: 'model_not_found' }),
        http(404, "model 'llama9' not found, try pulling it first"),
      ]) {
        const d = decide(facts);
        assert.equal(d.kind, 'not_found');
        assert.equal(d.failover, true, facts.message);
        assert.equal(d.transient, false);
      }
    });

    it('does not fail over on a 404 that is about the URL, and says to check the base URL', () => {
      const d = decide(http(404, 'Unknown request URL: POST /chat/completions.'));
      assert.equal(d.failover, false);
      assert.match(d.message, /cortex\.llm\.baseUrl/);
    });

    it('fails over on a 400 or 422 about tools, functions or schema', () => {
      for (const [status, text] of [
        [400, 'registry.ollama.ai/library/gemma:2b does not support tools'],
        [400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'],
        [400, 'Function calling is not enabled for models/gemini-1.0-pro'],
        [422, 'Invalid schema for function read_file'],
        [400, 'tools is not supported by this model'],
      ] as const) {
        const d = decide(http(status, text));
        assert.equal(d.failover, true, text);
        assert.equal(d.kind, 'bad_request');
      }
    });

    it('never fails over on 401, 403 or other 400s (a history problem naming tool_calls included)', () => {
      for (const facts of [
        http(401, 'Incorrect API key provided'),
        http(403, 'Project does not have access to model'),
        http(400, 'max_tokens is too large'),
        http(400, "Invalid 'messages[3].tool_calls': duplicate id", { param: 'messages[3].tool_calls' }),
        http(400, 'Invalid parameter: messages[2] with role tool must follow tool_calls'),
      ]) {
        const d = decide(facts);
        assert.equal(d.failover, false, facts.message);
        assert.equal(d.transient, false, facts.message);
      }
    });

    it('never fails over or drops parameters once the stream started', () => {
      const d = decide(http(404, 'The model `x` does not exist', { phase: 'stream', code: 'model_not_found' }));
      assert.equal(d.failover, false);
      assert.equal(decide(http(400, 'stream_options not supported', { phase: 'stream' })).drop, undefined);
    });

    it('words 401 for a person', () => {
      assert.equal(decide(http(401, 'bad key')).message, "The endpoint rejected the API key (401). Run 'Cortex: Set API key' or set OPENAI_API_KEY.");
    });
  });

  describe('parameters the endpoint refuses', () => {
    it('drops stream_options or response_format only when this attempt sent them', () => {
      assert.equal(decide(http(400, 'Unrecognized request argument supplied: stream_options')).drop, 'stream_options');
      assert.equal(decide(http(400, 'Unrecognized request argument supplied: stream_options'), { sentStreamOptions: false }).drop, undefined);
      assert.equal(decide(http(400, 'response_format is not supported', { param: 'response_format' })).drop, 'response_format');
      assert.equal(decide(http(400, 'response_format is not supported'), { sentResponseFormat: false }).drop, undefined);
    });
  });

  describe('transient failures are retried on the same model', () => {
    it('429 with its retry-after, 5xx, 408, 409', () => {
      const limited = decide(http(429, 'Rate limit reached', { retryAfterMs: 1500 }));
      assert.deepEqual([limited.kind, limited.transient, limited.failover, limited.retryAfterMs], ['rate_limit', true, false, 1500]);
      for (const status of [500, 502, 503, 504, 408, 409]) assert.equal(decide(http(status, 'x')).transient, true, String(status));
    });

    it("429 without a header waits what the endpoint's words ask, and only those phrasings count", () => {
      assert.equal(
        decide(http(429, 'Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000. Please try again in 2.4s. Visit x')).retryAfterMs,
        2400,
      );
      assert.equal(decide(http(429, 'Resource has been exhausted. Please retry in 20.518s.')).retryAfterMs, 20518);
      assert.equal(decide(http(429, 'Please try again in 1m30s.')).retryAfterMs, 90_000);
      assert.equal(decide(http(429, 'Please try again in 6ms.')).retryAfterMs, 6);
      assert.equal(decide(http(429, 'slow down; retry after 20 seconds')).retryAfterMs, 20_000);
      assert.equal(decide(http(429, 'Limit 30000 per 60s')).retryAfterMs, undefined);
      // The header wins over the words.
      assert.equal(decide(http(429, 'Please try again in 20s', { retryAfterMs: 500 })).retryAfterMs, 500);
    });

    it('an account out of quota is never retried nor failed over, whatever x-should-retry says, and ends the run', () => {
      const cases = [
        http(429, 'You exceeded your current quota, please check your plan and billing details.', { code: 'insufficient_quota', shouldRetry: true }),
        http(429, 'quota', { type: 'insufficient_quota' }),
        http(402, 'Insufficient credits. Add more using https://openrouter.ai/settings/credits'),
      ];
      for (const facts of cases) {
        const d = decide(facts);
        assert.deepEqual([d.kind, d.transient, d.failover], ['quota', false, false], facts.message);
        assert.match(
          d.message,
          /is out of quota \((429|402) .+\).* Retrying does not help: add credit or raise the limit with the provider, or use another key\.$/,
        );
        assert.equal(endsTheRun(d.kind), true);
      }
      assert.equal(decide(http(429, 'Rate limit reached', { code: 'rate_limit_exceeded' })).kind, 'rate_limit');
    });

    it('obeys x-should-retry either way, except for auth', () => {
      assert.equal(decide(http(500, 'x', { shouldRetry: false })).transient, false);
      assert.equal(decide(http(400, 'x', { shouldRetry: true })).transient, true);
      assert.equal(decide(http(401, 'x', { shouldRetry: true })).transient, false);
    });

    it('network: refused/DNS is unreachable and final; a reset is retried', () => {
      const refused = decide({ cause: 'network', phase: 'request', message: 'connect ECONNREFUSED', networkCode: 'ECONNREFUSED' });
      assert.deepEqual([refused.kind, refused.transient, refused.failover], ['unreachable', false, false]);
      assert.equal(
        refused.message,
        'Cannot reach the LLM endpoint http://127.0.0.1:11434/v1 (ECONNREFUSED). Check cortex.llm.baseUrl and that the server is running.',
      );
      const reset = decide({ cause: 'network', phase: 'request', message: 'socket hang up', networkCode: 'ECONNRESET' });
      assert.deepEqual([reset.kind, reset.transient], ['stream_broken', true]);
      const midStream = decide({ cause: 'network', phase: 'stream', message: 'terminated', networkCode: 'UND_ERR_SOCKET' });
      assert.deepEqual([midStream.kind, midStream.transient, midStream.failover], ['stream_broken', true, false]);
    });

    it("TLS: a certificate the endpoint's host cannot be trusted with is final and says what to do, in the host's words", () => {
      const tls = (networkCode: string, hints?: FailureContext['hints'], proxy?: string) =>
        decide(
          { cause: 'network', phase: 'request', message: 'fetch failed', networkCode },
          { baseUrl: 'https://llm.corp.example/v1', ...(hints ? { hints } : {}), ...(proxy ? { proxy } : {}) },
        );
      for (const code of [
        'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
        'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
        'UNABLE_TO_GET_ISSUER_CERT',
        'SELF_SIGNED_CERT_IN_CHAIN',
        'DEPTH_ZERO_SELF_SIGNED_CERT',
        'CERT_UNTRUSTED',
      ]) {
        const d = tls(code);
        assert.deepEqual([d.kind, d.transient, d.failover], ['unreachable', false, false], code);
        assert.match(
          d.message,
          new RegExp(
            `^Cortex does not trust the LLM endpoint https://llm\\.corp\\.example/v1: its certificate [^(]+ \\(${code}\\); if your company uses its own certificate authority, give its certificate \\(PEM\\) with NODE_EXTRA_CA_CERTS=FILE in the environment VS Code starts with\\.$`,
          ),
        );
      }
      const shell = tls('SELF_SIGNED_CERT_IN_CHAIN', {
        apiKey: 'Set OPENAI_API_KEY.',
        setting: (key) => `--${key}`,
        extraCaCerts: 'NODE_EXTRA_CA_CERTS=FILE for the cortex command',
      });
      assert.match(shell.message, /\(SELF_SIGNED_CERT_IN_CHAIN\); .* with NODE_EXTRA_CA_CERTS=FILE for the cortex command\.$/);
      assert.match(
        tls('ERR_TLS_CERT_ALTNAME_INVALID').message,
        /its certificate is for another host name \(ERR_TLS_CERT_ALTNAME_INVALID\); the endpoint .* must present a valid certificate/,
      );
      assert.match(tls('CERT_HAS_EXPIRED').message, /its certificate has expired \(CERT_HAS_EXPIRED\)/);
      assert.match(tls('CERT_HAS_EXPIRED', undefined, 'http://u:secret@proxy:3128').message, /through the proxy http:\/\/proxy:3128\)/);
      assert.doesNotMatch(tls('CERT_HAS_EXPIRED', undefined, 'http://u:secret@proxy:3128').message, /secret/);
    });

    it('timeouts, streams without [DONE], in-stream error events', () => {
      const idle = decide({ cause: 'idle_timeout', phase: 'stream', message: '' });
      assert.deepEqual([idle.kind, idle.transient], ['timeout', true]);
      assert.match(idle.message, /60 s .*streamIdleTimeoutSeconds/);
      assert.deepEqual(
        [decide({ cause: 'request_timeout', phase: 'request', message: '' }).kind, decide({ cause: 'no_done', phase: 'stream', message: '' }).kind],
        ['timeout', 'stream_broken'],
      );
      const event = decide(http(undefined, 'upstream overloaded', { phase: 'stream' }));
      assert.deepEqual([event.kind, event.transient, event.failover], ['server', true, false]);
    });

    it('malformed responses and cancels are final', () => {
      assert.deepEqual(
        [decide({ cause: 'malformed', phase: 'stream', message: 'bad json' }).transient, decide({ cause: 'cancelled', phase: 'stream', message: '' }).kind],
        [false, 'cancelled'],
      );
    });
  });

  describe('describeSdkFailure (real SDK error classes)', () => {
    it('reads status, code, param and retry headers of an APIError', () => {
      const headers = new Headers({ 'retry-after-ms': '250', 'x-should-retry': 'true' });
      const err = OpenAI.APIError.generate(
        429,
        { error: { message: 'slow down', code: 'rate_limit_exceeded', param: null, type: 'requests' } },
        undefined,
        headers,
      );
      const facts = describeSdkFailure(err, 'request');
      assert.deepEqual(facts, {
        cause: 'http',
        phase: 'request',
        status: 429,
        message: 'slow down',
        code: 'rate_limit_exceeded',
        type: 'requests',
        shouldRetry: true,
        retryAfterMs: 250,
      });
      const seconds = describeSdkFailure(OpenAI.APIError.generate(503, { error: { message: 'x' } }, undefined, new Headers({ 'retry-after': '2' })), 'request');
      assert.equal(seconds.retryAfterMs, 2000);
    });

    it('finds the network code along the cause chain', () => {
      const cause = Object.assign(new TypeError('fetch failed'), {
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
      });
      const facts = describeSdkFailure(new OpenAI.APIConnectionError({ cause }), 'request');
      assert.equal(facts.cause, 'network');
      assert.equal(facts.networkCode, 'ECONNREFUSED');
    });

    it('maps timeouts, aborts, bad JSON and in-stream error events', () => {
      assert.equal(describeSdkFailure(new OpenAI.APIConnectionTimeoutError(), 'request').cause, 'request_timeout');
      assert.equal(describeSdkFailure(new OpenAI.APIUserAbortError(), 'stream').cause, 'cancelled');
      assert.equal(describeSdkFailure(new SyntaxError('Unexpected token'), 'stream').cause, 'malformed');
      const inStream = describeSdkFailure(new OpenAI.APIError(undefined, { message: 'quota', code: 429 }, undefined, undefined), 'stream');
      assert.deepEqual([inStream.cause, inStream.status, inStream.message], ['http', 429, 'quota']);
    });
  });
});
