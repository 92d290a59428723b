import * as vscode from 'vscode';
import type { AccumulatedToolCall, ChatMessage, ChatRequest, ChatResponse, LlmAttempt, LlmClient } from '../core/llm/llmTypes';
import { LlmError } from '../core/llm/llmTypes';
import { modelSelector } from './vscodeModelSelector';

// The LLM client over VS Code's Language Model API (docs/design.md, “Models from VS Code”): the
// models another extension provides (Copilot's, without a key), used for every request of a run
// like the OpenAI-compatible client. Messages and tools are translated to the API's parts; the
// response stream is gathered into text and tool calls; the run's cancel cancels the request.

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part: { type?: string; text?: string }) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');
  return '';
}

/** The API has user and assistant messages only: a system prompt becomes the first user message's head. */
export function toLanguageModelMessages(messages: readonly ChatMessage[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'developer' || message.role === 'user') {
      out.push(vscode.LanguageModelChatMessage.User(textOf(message.content)));
    } else if (message.role === 'assistant') {
      const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart> = [];
      const text = textOf(message.content);
      if (text) parts.push(new vscode.LanguageModelTextPart(text));
      for (const call of message.tool_calls ?? []) {
        if (call.type !== 'function') continue;
        let input: object = {};
        try {
          const parsed: unknown = JSON.parse(call.function.arguments || '{}');
          if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) input = parsed;
        } catch {
          // A call whose arguments never decoded was answered with an error; it is replayed without them.
        }
        parts.push(new vscode.LanguageModelToolCallPart(call.id, call.function.name, input));
      }
      out.push(vscode.LanguageModelChatMessage.Assistant(parts.length ? parts : ''));
    } else if (message.role === 'tool') {
      out.push(
        vscode.LanguageModelChatMessage.User([
          new vscode.LanguageModelToolResultPart(message.tool_call_id, [new vscode.LanguageModelTextPart(textOf(message.content))]),
        ]),
      );
    }
  }
  return out;
}

/** A LanguageModelError (or any failure) as one sentence saying what to do. */
export function languageModelFailure(error: unknown, model: string): LlmError {
  if (error instanceof LlmError) return error;
  if (error instanceof vscode.CancellationError) return new LlmError('cancelled', 'the request was cancelled');
  const message = (error as Error)?.message ?? String(error);
  if (error instanceof vscode.LanguageModelError) {
    switch (error.code) {
      case vscode.LanguageModelError.NoPermissions().code:
        return new LlmError(
          'auth',
          `VS Code did not allow Cortex to use the model ${model} (${message}): allow it when VS Code asks, or in the Language Models settings.`,
        );
      case vscode.LanguageModelError.Blocked().code:
        return new LlmError('quota', `The model ${model} refused the request: its quota or its provider's policy blocks it (${message}).`);
      case vscode.LanguageModelError.NotFound().code:
        return new LlmError('not_found', `The model ${model} is no longer available in VS Code (${message}): choose another with cortex.llm.vscodeModel.`);
    }
  }
  if (/quota|rate limit/i.test(message)) return new LlmError('quota', `The model ${model} is over its quota: ${message}`);
  return new LlmError('server', `The model ${model} failed: ${message}`);
}

/**
 * Failures that move on to the next of cortex.llm.vscodeFallbackModels: the model is gone, over
 * its quota or blocked, rate-limited or failing. Never a permission the person has to give (another
 * model would ask the same), never a cancel.
 */
export function failsOver(error: LlmError): boolean {
  return error.kind === 'not_found' || error.kind === 'quota' || error.kind === 'rate_limit' || error.kind === 'server';
}

/** Token counts from the model's own `countTokens` (none when it cannot count: the tokenizer estimates then). */
async function countedUsage(
  model: vscode.LanguageModelChat,
  messages: readonly vscode.LanguageModelChatMessage[],
  reply: string,
  token: vscode.CancellationToken,
): Promise<ChatResponse['usage']> {
  try {
    let promptTokens = 0;
    for (const message of messages) promptTokens += await model.countTokens(message, token);
    return { promptTokens, completionTokens: reply ? await model.countTokens(reply, token) : 0 };
  } catch {
    return undefined;
  }
}

export class VscodeLmClient implements LlmClient {
  /** `selectors`: cortex.llm.vscodeModel, then cortex.llm.vscodeFallbackModels, tried in this order. */
  constructor(private readonly selectors: readonly string[]) {}

  private async model(selector: string): Promise<vscode.LanguageModelChat> {
    const [model] = await vscode.lm.selectChatModels(modelSelector(selector));
    if (!model)
      throw new LlmError(
        'not_found',
        `No language model in VS Code matches ${selector ? `"${selector}"` : 'cortex.llm.vscodeModel'}: install and sign in to an extension that provides models (GitHub Copilot, for example), choose one with "Cortex: Choose model…", or set cortex.llm.provider to openai-compatible.`,
      );
    return model;
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const attempts: LlmAttempt[] = [];
    const selectors = this.selectors.length > 0 ? this.selectors : [''];
    let failure: LlmError | undefined;
    for (const selector of selectors) {
      const started = Date.now();
      try {
        const response = await this.chatWith(selector, request);
        attempts.push({ model: response.usedModel, ok: true, durationMs: Date.now() - started });
        return { ...response, requestedModel: selectors[0], attempts };
      } catch (error) {
        failure = error as LlmError;
        attempts.push({ model: selector || '(first offered)', ok: false, error: failure.message, durationMs: Date.now() - started });
        if (request.signal?.aborted || !failsOver(failure)) break;
      }
    }
    const tried = attempts.length > 1 ? ` (tried ${attempts.map((a) => a.model).join(', ')})` : '';
    throw new LlmError(failure!.kind, `${failure!.message}${tried}`, failure!.status, attempts);
  }

  private async chatWith(selector: string, request: ChatRequest): Promise<Omit<ChatResponse, 'requestedModel' | 'attempts'>> {
    const model = await this.model(selector);
    const name = `${model.vendor}/${model.id}`;
    const source = new vscode.CancellationTokenSource();
    const onAbort = () => source.cancel();
    request.signal?.addEventListener('abort', onAbort);
    try {
      if (request.signal?.aborted) throw new vscode.CancellationError();
      const messages = toLanguageModelMessages(request.messages);
      const response = await model.sendRequest(
        messages,
        {
          justification: 'Cortex plans and carries out the task you gave it with this model.',
          tools: (request.tools ?? []).map((tool) => ({
            name: tool.function.name,
            description: tool.function.description,
            inputSchema: tool.function.parameters,
          })),
          // The purpose rides along for providers that route by it (the e2e suite's scripted provider).
          modelOptions: { cortexPurpose: request.purpose, ...(request.stepId ? { cortexStepId: request.stepId } : {}) },
        },
        source.token,
      );
      let content = '';
      const toolCalls: AccumulatedToolCall[] = [];
      // The text as it arrives, for the streamed planner (docs/design.md, “The planner”).
      request.onStreamStart?.();
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) {
          content += part.value;
          request.onContentDelta?.(part.value);
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          const rawArguments = JSON.stringify(part.input ?? {});
          toolCalls.push({
            id: part.callId || `call_${request.batch ?? 0}_${toolCalls.length}`,
            providerId: Boolean(part.callId),
            index: toolCalls.length,
            name: part.name,
            rawArguments,
            decoded: { ok: true, value: part.input ?? {}, doubleEncoded: false },
            arguments: part.input ?? {},
            isComplete: true,
            finishReason: 'tool_calls',
          });
        }
      }
      // The API reports no usage: the model counts its own tokens, so the budget and the cost see its figures.
      const usage = await countedUsage(model, messages, content + toolCalls.map((call) => call.name + call.rawArguments).join(''), source.token);
      return {
        content,
        toolCalls,
        droppedToolNames: [],
        finishReason: toolCalls.length ? 'tool_calls' : 'stop',
        usedModel: name,
        ...(usage ? { usage } : {}),
        notes: [],
      };
    } catch (error) {
      if (request.signal?.aborted) throw new LlmError('cancelled', 'the request was cancelled');
      throw languageModelFailure(error, name);
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
      source.dispose();
    }
  }
}
