import type { ChatMessage, ToolSpec } from '../llm/llmTypes';

// Token counts with a real BPE tokenizer (o200k_base, the encoding of OpenAI's current models),
// never characters ÷ 4. Other providers tokenize differently; the per-model calibration
// (tokenCalibration.ts) scales these counts to what the endpoint reports. The encoding's tables
// are large, so they are loaded on the first count, not when the agent bundle loads.

type Encoding = typeof import('./o200k');

let encoding: Encoding | undefined;
function tokenizer(): Encoding {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on the first count (its own bundle, dist/o200k.js)
  encoding ??= require('./o200k') as Encoding;
  return encoding;
}

/** Text such as `<|endoftext|>` in a tool output is ordinary text here, never a control token. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Per message: role and separators (OpenAI's chat format spends 3–4 tokens on them). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Per tool call in an assistant message: id, type and the function wrapper. */
export const TOOL_CALL_OVERHEAD_TOKENS = 8;
/**
 * Per image part (a tool's image sent to the model): an estimate, since what an image costs depends
 * on the provider and the image's size (OpenAI: 85 to ~1,100 for a high-detail image up to 1024 px).
 */
export const IMAGE_PART_TOKENS = 800;
/** Every reply is primed with the assistant's role. */
export const REPLY_PRIMING_TOKENS = 3;

// Some texts come back in request after request as new strings: the system prompts, the tool
// specs' JSON. Their counts are kept by text (a bounded set, oldest out first); short texts are
// cheap to count and huge ones are rarely repeated.
const MEMO_MIN_CHARS = 256;
const MEMO_MAX_CHARS = 64 * 1024;
const MEMO_ENTRIES = 128;
const textCounts = new Map<string, number>();

export function countTextTokens(text: string): number {
  if (text === '') return 0;
  const known = memoized(text);
  if (known !== undefined) return known;
  let tokens = 0;
  for (const piece of safePieces(text)) tokens += tokenizer().countTokens(piece, PLAIN_TEXT);
  remember(text, tokens);
  return tokens;
}

function isMemoSized(text: string): boolean {
  return text.length >= MEMO_MIN_CHARS && text.length <= MEMO_MAX_CHARS;
}

function memoized(text: string): number | undefined {
  if (!isMemoSized(text)) return undefined;
  const tokens = textCounts.get(text);
  if (tokens !== undefined) {
    // Kept in order of use: the texts of every request (system prompt, tool specs) stay.
    textCounts.delete(text);
    textCounts.set(text, tokens);
  }
  return tokens;
}

function remember(text: string, tokens: number): void {
  if (!isMemoSized(text)) return;
  if (textCounts.size >= MEMO_ENTRIES) textCounts.delete(textCounts.keys().next().value!);
  textCounts.set(text, tokens);
}

/**
 * A cheap upper bound of countTextTokens: its UTF-8 length. Every token of a byte-level BPE stands
 * for at least one byte, so a text never has more tokens than bytes (pieces cut by safePieces
 * included); a text whose bytes fit a budget needs no tokenizer to know it fits.
 */
export function textTokensAtMost(text: string): number {
  // Three bytes per UTF-16 unit at most: short texts need not even be measured.
  return text.length < 64 ? text.length * 3 : Buffer.byteLength(text, 'utf8');
}

/** The tokens of `text`, encoded piece by piece (see safePieces); decoding them gives the text back. */
function encodeText(text: string): number[] {
  const tokens: number[] = [];
  for (const piece of safePieces(text)) for (const token of tokenizer().encode(piece, PLAIN_TEXT)) tokens.push(token);
  return tokens;
}

// BPE merges within one pre-token cost time quadratic in its length: 30,000 identical letters
// take 0.4 s, a minified megabyte minutes. Runs of non-space characters longer than LONG_RUN
// are therefore cut into RUN_PIECE pieces and counted separately (at most one extra token per
// piece, an over-count, which is the safe side for a budget).
const LONG_RUN = /\S{1000,}/g;
const RUN_PIECE = 500;

function* safePieces(text: string): Generator<string> {
  if (text.length < 1000) {
    yield text;
    return;
  }
  let at = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    if (match.index > at) yield text.slice(at, match.index);
    const end = match.index + match[0].length;
    for (let start = match.index; start < end;) {
      let stop = Math.min(end, start + RUN_PIECE);
      // Never between the two halves of a surrogate pair.
      if (stop < end && /[\uDC00-\uDFFF]/.test(text[stop])) stop++;
      yield text.slice(start, stop);
      start = stop;
    }
    at = end;
  }
  if (at < text.length) yield text.slice(at);
}

/** The text of a message's content: a string, or the text parts of an array. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content)
    if (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string') text += (part as { text: string }).text;
  return text;
}

// Messages are never changed once built (pruning makes new ones), so a count is kept per object:
// a long step's request costs only the messages that are new since the last one.
const messageCounts = new WeakMap<object, number>();
const toolCounts = new WeakMap<object, number>();
/** The JSON the endpoint receives for a list of tool specs, made once per list. */
const toolTexts = new WeakMap<object, string>();

function toolsText(tools: readonly ToolSpec[]): string {
  let text = toolTexts.get(tools);
  if (text === undefined) {
    text = JSON.stringify(tools);
    toolTexts.set(tools, text);
  }
  return text;
}

export function countMessageTokens(message: ChatMessage): number {
  const cached = messageCounts.get(message);
  if (cached !== undefined) return cached;
  const tokens = messageTokens(message, countTextTokens);
  messageCounts.set(message, tokens);
  return tokens;
}

/** A message's tokens, its texts counted by `count`. */
function messageTokens(message: ChatMessage, count: (text: string) => number): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS + count(contentText(message.content));
  if (Array.isArray(message.content)) for (const part of message.content) if (part.type === 'image_url') tokens += IMAGE_PART_TOKENS;
  if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue;
      tokens += TOOL_CALL_OVERHEAD_TOKENS + count(call.function.name) + count(call.function.arguments) + count(call.id);
    }
  }
  if (message.role === 'tool') tokens += count(message.tool_call_id);
  return tokens;
}

/** The tool specs as the endpoint receives them (their JSON). */
export function countToolsTokens(tools: readonly ToolSpec[] | undefined): number {
  if (!tools || tools.length === 0) return 0;
  const cached = toolCounts.get(tools);
  if (cached !== undefined) return cached;
  const tokens = countTextTokens(toolsText(tools));
  toolCounts.set(tools, tokens);
  return tokens;
}

/** The whole prompt of a request: every message, the tool specs and the reply priming. */
export function countPromptTokens(messages: readonly ChatMessage[], tools?: readonly ToolSpec[]): number {
  let tokens = REPLY_PRIMING_TOKENS + countToolsTokens(tools);
  for (const message of messages) tokens += countMessageTokens(message);
  return tokens;
}

/**
 * At least countPromptTokens(messages, tools), without the tokenizer when it can: exact counts
 * already made are used, other texts count one token per UTF-8 byte (textTokensAtMost).
 */
export function promptTokensAtMost(messages: readonly ChatMessage[], tools?: readonly ToolSpec[]): number {
  let tokens = REPLY_PRIMING_TOKENS;
  if (tools && tools.length > 0) tokens += toolCounts.get(tools) ?? textTokensAtMost(toolsText(tools));
  for (const message of messages) tokens += messageCounts.get(message) ?? messageTokensAtMost(message);
  return tokens;
}

function messageTokensAtMost(message: ChatMessage): number {
  return messageTokens(message, textTokensAtMost);
}

/**
 * countPromptTokens(messages, tools), made on this thread once the request has left: the request
 * that needs no decision is written first and counted while it travels (the model's latency dwarfs
 * the count, and the run's first count, which loads the tokenizer's tables, takes about 100 ms).
 * Counts already made are kept (per message object, and the memo of repeated texts), so a step's
 * next turn costs only its new messages. The count is of the prompt as it is now: a step's
 * conversation grows while the request travels (the reply and the tool results are appended to the
 * same list), and what came later is not part of this prompt.
 */
export async function countPromptTokensSoon(live: readonly ChatMessage[], tools?: readonly ToolSpec[]): Promise<number> {
  const messages = [...live];
  // Two `setImmediate` turns: the platform's fetch (undici) writes a request on a kept-alive
  // connection only in a `setImmediate` of its own (it first lets the idle socket report a close),
  // queued after one made here in the same turn; a count in the first turn would go before it.
  await afterImmediate();
  await afterImmediate();
  return countPromptTokens(messages, tools);
}

function afterImmediate(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * `text` cut to at most `maxTokens` tokens (the marker included), keeping the start, or the start
 * and the end with `keep: 'both'`. The marker says how many tokens were left out.
 */
export function clipToTokens(text: string, maxTokens: number, keep: 'head' | 'both' = 'head'): string {
  if (textTokensAtMost(text) <= maxTokens) return text;
  const total = countTextTokens(text);
  if (total <= maxTokens) return text;
  const tokens = encodeText(text);
  const marker = (omitted: number) => `\n…[${omitted} more tokens truncated]\n`;
  const room = Math.max(0, maxTokens - countTextTokens(marker(total)));
  if (keep === 'head' || room < 2) {
    const head = prefixOf(text, tokenizer().decode(tokens.slice(0, room)));
    return `${head}${marker(total - room)}`.trimEnd();
  }
  const headCount = Math.ceil(room / 2);
  const tailCount = room - headCount;
  const head = prefixOf(text, tokenizer().decode(tokens.slice(0, headCount)));
  const tail = suffixOf(text, tokenizer().decode(tokens.slice(tokens.length - tailCount)));
  return `${head}${marker(total - room)}${tail}`;
}

// A token boundary can split a multi-byte character; the decoder then ends (or starts) with U+FFFD.
// Only what really is a prefix (suffix) of the text is kept.
function prefixOf(text: string, decoded: string): string {
  let s = decoded;
  while (s.length > 0 && !text.startsWith(s)) s = s.slice(0, -1);
  return s;
}
function suffixOf(text: string, decoded: string): string {
  let s = decoded;
  while (s.length > 0 && !text.endsWith(s)) s = s.slice(1);
  return s;
}
