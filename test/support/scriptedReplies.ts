import type { ChunksReply, ErrorReply, Handler, MessageReply, Reply, ScriptedRequest, ToolCallSpec } from './scriptedServer';

// Reply builders, routers and request accessors for scripting the test server.

export type ScriptedPurpose = 'planner' | 'executor' | 'replanner' | 'tool-name-repair' | 'tool-call-repair' | 'aggregator' | 'compact';

/** A plain assistant text message. */
export function message(content: string, extra: Omit<Partial<MessageReply>, 'kind' | 'content'> = {}): MessageReply {
  return { kind: 'message', content, ...extra };
}

/** An assistant message that only calls tools. */
export function toolCalls(...specs: ToolCallSpec[]): MessageReply {
  return { kind: 'message', toolCalls: specs };
}

/** One tool call spec: `call('read_file', { path: 'a.ts' })`. */
export function call(name: string, args: string | Record<string, unknown> = {}, id?: string): ToolCallSpec {
  return id === undefined ? { name, arguments: args } : { id, name, arguments: args };
}

/** A message whose content is JSON.stringify(obj) (planner/replanner/repair replies). */
export function json(obj: unknown, extra: Omit<Partial<MessageReply>, 'kind' | 'content'> = {}): MessageReply {
  return { kind: 'message', content: JSON.stringify(obj), ...extra };
}

/** An OpenAI-shaped HTTP error. */
export function error(status: number, messageText: string, extra: Omit<Partial<ErrorReply>, 'kind' | 'status' | 'message'> = {}): ErrorReply {
  return { kind: 'error', status, message: messageText, ...extra };
}

/** An error delivered inside an open SSE stream (`data: {"error":...}`), as some providers do; the SDK throws it as an APIError. */
export function streamError(messageText: string, before: Array<Record<string, unknown>> = []): ChunksReply {
  return { kind: 'chunks', chunks: [...before, { error: { message: messageText, type: 'server_error', param: null, code: null } }], done: false };
}

/** Dispatch on the x-cortex-purpose header; an unrouted purpose answers 400 naming it so the test fails loudly. */
export function route(routes: Partial<Record<ScriptedPurpose, Handler | Reply>>): Handler {
  return (req) => {
    const target = req.purpose === undefined ? undefined : routes[req.purpose as ScriptedPurpose];
    if (target === undefined) {
      const known = Object.keys(routes).join(', ') || 'none';
      const msg = `scripted route: no handler for purpose '${req.purpose ?? '(no x-cortex-purpose header)'}' (routed: ${known})`;
      console.error(`[scriptedServer] request #${req.index}: ${msg}`);
      return error(400, msg, { code: 'unscripted_purpose', headers: { 'x-should-retry': 'false' } });
    }
    return typeof target === 'function' ? target(req) : target;
  };
}

/**
 * Replies in order, then throws "script exhausted". Items may be Replies or Handlers (called with the
 * request). `sequence(...).remaining()` tells how many are left, for end-of-test checks.
 */
export function sequence(...items: Array<Reply | Handler>): Handler & { remaining(): number } {
  let next = 0;
  const handler = (req: ScriptedRequest): Reply | Promise<Reply> => {
    if (next >= items.length) {
      throw new Error(
        `script exhausted: all ${items.length} scripted replies were used; request #${req.index} (purpose=${req.purpose ?? '-'}, step=${req.stepId ?? '-'}) has none`,
      );
    }
    const item = items[next++];
    return typeof item === 'function' ? item(req) : item;
  };
  return Object.assign(handler, { remaining: () => items.length - next });
}

/** Text of a message's content, whether a string or an array of text parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p === 'object' && typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

function messagesOf(req: ScriptedRequest): any[] {
  return Array.isArray(req.body?.messages) ? req.body.messages : [];
}

/** Content of the first user message ('' if none). */
export function firstUserMessage(req: ScriptedRequest): string {
  const m = messagesOf(req).find((x) => x?.role === 'user');
  return m ? contentText(m.content) : '';
}

/** Content of the system message(s) joined ('' if none). */
export function systemMessage(req: ScriptedRequest): string {
  return messagesOf(req)
    .filter((x) => x?.role === 'system' || x?.role === 'developer')
    .map((x) => contentText(x.content))
    .join('\n');
}

/** The trailing role:'tool' messages (answers to the last assistant tool calls). */
export function toolMessages(req: ScriptedRequest): Array<{ role: 'tool'; tool_call_id: string; content: any }> {
  const messages = messagesOf(req);
  let start = messages.length;
  while (start > 0 && messages[start - 1]?.role === 'tool') start--;
  return messages.slice(start);
}

/** The last assistant message, or undefined. */
export function lastAssistant(req: ScriptedRequest): any {
  const messages = messagesOf(req);
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === 'assistant') return messages[i];
  return undefined;
}

/** How many assistant turns the conversation already has (0 on a step's first request). */
export function assistantTurns(req: ScriptedRequest): number {
  return messagesOf(req).filter((x) => x?.role === 'assistant').length;
}

/** Names of the tools offered in the request. */
export function toolNames(req: ScriptedRequest): string[] {
  return Array.isArray(req.body?.tools) ? req.body.tools.map((t: any) => t?.function?.name) : [];
}

/**
 * For executor requests of parallel steps: pick the handler whose key occurs in the first user message
 * (the longest matching key wins, so 'step 10' beats 'step 1'). Values may be Handlers or arrays of
 * Replies indexed by assistantTurns(req). No match throws, naming the message.
 */
export function byStep(map: Record<string, Handler | Reply[]>): Handler {
  const keys = Object.keys(map).sort((a, b) => b.length - a.length);
  return (req) => {
    const first = firstUserMessage(req);
    const key = keys.find((k) => first.includes(k));
    if (key === undefined) {
      throw new Error(
        `byStep: no key of [${keys.map((k) => JSON.stringify(k)).join(', ')}] occurs in the first user message: ${JSON.stringify(first.slice(0, 300))}`,
      );
    }
    const target = map[key];
    if (typeof target === 'function') return target(req);
    const turn = assistantTurns(req);
    if (turn >= target.length) {
      throw new Error(`script exhausted: byStep ${JSON.stringify(key)} has ${target.length} scripted turns, request #${req.index} is turn ${turn + 1}`);
    }
    return target[turn];
  };
}
