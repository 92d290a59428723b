import { canonicalJson } from '../text/canonicalJson';
import { clip } from '../text/clip';
import { decodeArgumentText, summarizeDecoding } from './argumentDecoding';
import { hasNonWhitespace, newArgumentScan, scanArgumentText, type ArgumentScan } from './argumentScanner';
import { isUsableToolName } from './isUsableToolName';
import { ReasoningText } from './reasoningText';
import type { AccumulatedToolCall } from './llmTypes';
import { normalizeToolCallIndex, opaqueSortKey, type IndexKey } from './toolCallIndex';
import { isRecord } from '../text/isRecord';

// A pure accumulator over the raw chunks of an OpenAI-compatible chat completion, streamed or not.
// Providers disagree on how they stream tool calls (see test/fixtures/providerShapes.ts); this one
// loses none of them. Each `tool_calls[]` fragment is routed, in this order:
//   1. by id, when the fragment has an id this response has already seen (ids repeated on every
//      chunk are matched, never concatenated);
//   2. by index (normalised: "2" -> 2; negative, fractional or odd values get their own key that
//      never matches an integer index), or, when there is no index, to the call streaming last;
//   3. a fragment whose id is new attaches that id to the routed call if that call has none yet
//      (a first fragment without id stays), otherwise it starts a new call;
//   4. a fragment never joins a call whose arguments already form a complete JSON value when it
//      brings more argument text or another name, nor a call an earlier entry of the same delta
//      went to: both start a new call (Ollama/Gemini/proxies that repeat index 0 for every call).
// A new call whose index is taken gets the next free index after it, so a later fragment with that
// index finds it. Calls are ordered by index (odd negative/fractional ones by value, other odd ones
// last), then by arrival; the reported `index` is the position in that order, which is also the
// `call_{batch}_{index}` fallback id (docs/design.md, “Streamed tool-call accumulation”). Argument fragments are kept in arrays and
// joined at the end (in blocks on the way), never re-concatenated per fragment: N fragments cost O(N).

export const DEFAULT_MAX_ARGUMENT_BYTES = 4 * 1024 * 1024;
const MAX_NOTES = 100;

export interface ToolCallAccumulatorOptions {
  /** Per-run batch counter for fallback ids `call_{batch}_{index}`. Default 0. */
  batch?: number;
  /** A call whose arguments exceed this many UTF-8 bytes is not executable ('too_large'). */
  maxArgumentBytes?: number;
}

export interface AccumulatorFinishOptions {
  /** The stream broke off (reset, no [DONE], idle timeout): unparseable arguments are 'truncated'. */
  streamBroken?: boolean;
}

export interface AccumulatorResult {
  content: string;
  /** Sorted by index; `index` is the position in this list. */
  toolCalls: AccumulatedToolCall[];
  /** Names dropped because they were empty or only symbols (docs/design.md, “Streamed tool-call accumulation”). */
  droppedToolNames: string[];
  finishReason: string | null;
  usage?: { promptTokens: number; completionTokens: number; cachedPromptTokens?: number };
  /** The model's reasoning text (`reasoning_content` / `reasoning`), capped (reasoningText.ts); for the trace only, never sent back. */
  reasoning?: string;
  /** Ingestion notes for the trace: odd shapes met and how they were handled. */
  notes: string[];
}

export interface ToolCallAccumulator {
  /** Feeds one raw parsed chunk (`chat.completion.chunk`, or a whole non-streamed `chat.completion`). Never throws. */
  push(chunk: unknown): void;
  /** Assembles the result. Later calls return the same result; pushes after it are ignored. */
  finish(options?: AccumulatorFinishOptions): AccumulatorResult;
  /** Chunks pushed so far. */
  readonly chunkCount: number;
  /** The last finish_reason seen so far, or null. */
  readonly finishReason: string | null;
}

export function createToolCallAccumulator(options: ToolCallAccumulatorOptions = {}): ToolCallAccumulator {
  return new Accumulator(options.batch ?? 0, options.maxArgumentBytes ?? DEFAULT_MAX_ARGUMENT_BYTES);
}

/** Fragments are joined in blocks so the many tiny strings die young; each character is copied at most twice. */
const BLOCK_FRAGMENTS = 64;

class CallState {
  id = '';
  name = '';
  private readonly blocks: string[] = [];
  private pending: string[] = [];
  readonly scan: ArgumentScan = newArgumentScan();
  tooLarge = false;
  /** The delta this call was last touched in, so two entries of one delta never merge. */
  lastDelta = -1;
  constructor(
    readonly seq: number,
    readonly sortKey: number,
  ) {}

  addText(fragment: string): void {
    this.pending.push(fragment);
    if (this.pending.length === BLOCK_FRAGMENTS) {
      this.blocks.push(this.pending.join(''));
      this.pending = [];
    }
  }

  /** The argument text received so far (linear in its length). */
  text(): string {
    const tail = this.pending.join('');
    return this.blocks.length === 0 ? tail : this.blocks.join('') + tail;
  }
}

type JsonRecord = Record<string, unknown>;

class Accumulator implements ToolCallAccumulator {
  chunkCount = 0;
  finishReason: string | null = null;
  private readonly calls: CallState[] = [];
  private readonly byId = new Map<string, CallState>();
  private readonly byIndex = new Map<number | string, CallState>();
  private readonly claimed = new Set<number>();
  private maxClaim = -1;
  private current: CallState | undefined;
  private deltaSerial = 0;
  private readonly content: string[] = [];
  private readonly reasoning = new ReasoningText();
  private usage: { promptTokens: number; completionTokens: number; cachedPromptTokens?: number } | undefined;
  private readonly notes: string[] = [];
  private notesOverflow = 0;
  private readonly noted = new Set<string>();
  private result: AccumulatorResult | undefined;

  constructor(
    private readonly batch: number,
    private readonly maxBytes: number,
  ) {}

  push(chunk: unknown): void {
    if (this.result) {
      this.noteOnce('after-finish', 'ignored chunks pushed after the response was assembled');
      return;
    }
    this.chunkCount++;
    if (!isRecord(chunk)) {
      this.note(`chunk ${this.chunkCount}: ignored a chunk that is not a JSON object`);
      return;
    }
    this.readUsage(chunk);
    const choices = chunk.choices;
    if (!Array.isArray(choices)) {
      if (choices !== undefined && choices !== null) this.note(`chunk ${this.chunkCount}: ignored 'choices' that is not an array`);
      return;
    }
    for (let i = 0; i < choices.length; i++) {
      const choice: unknown = choices[i];
      if (!isRecord(choice)) {
        this.note(`chunk ${this.chunkCount}: ignored a choice that is not an object`);
        continue;
      }
      const choiceIndex = choice.index;
      if (choiceIndex !== undefined && choiceIndex !== null && choiceIndex !== 0 && choiceIndex !== '0') {
        this.noteOnce('other-choices', 'ignored choices other than the first (n > 1 is not used)');
        continue;
      }
      // Streamed chunks carry `delta`; a non-streamed completion carries `message`.
      const delta = choice.delta ?? choice.message;
      if (isRecord(delta)) this.readDelta(delta);
      else if (delta !== undefined && delta !== null) this.note(`chunk ${this.chunkCount}: ignored a delta that is not an object`);
      const finish = choice.finish_reason;
      if (typeof finish === 'string' && finish !== '') this.finishReason = finish;
    }
  }

  finish(options: AccumulatorFinishOptions = {}): AccumulatorResult {
    if (this.result) return this.result;
    const cutOff = options.streamBroken === true || this.finishReason === 'length';
    const ordered = [...this.calls].sort((a, b) => a.sortKey - b.sortKey || a.seq - b.seq);
    const kept: CallState[] = [];
    const droppedToolNames: string[] = [];
    for (const call of ordered) {
      if (isUsableToolName(call.name)) kept.push(call);
      else {
        droppedToolNames.push(call.name);
        this.note(`dropped a tool call with name ${JSON.stringify(call.name)} (empty or only symbols)${call.id ? `, id ${call.id}` : ''}`);
      }
    }
    const providerIds = new Set(kept.filter((c) => c.id !== '').map((c) => c.id));
    const toolCalls = kept.map((call, index): AccumulatedToolCall => {
      let id = call.id;
      if (id === '') {
        id = `call_${this.batch}_${index}`;
        // A provider id of the same shape must not be duplicated within one response.
        for (let n = 1; providerIds.has(id); n++) id = `call_${this.batch}_${index}_${n}`;
      }
      const rawArguments = call.text();
      const decoding = decodeArgumentText(rawArguments, { cutOff, tooLarge: call.tooLarge });
      const summary = summarizeDecoding(decoding, cutOff);
      if (summary.note) this.note(`tool call ${id} (${call.name}): ${summary.note}`);
      const out: AccumulatedToolCall = {
        id,
        providerId: call.id !== '',
        index,
        name: call.name,
        rawArguments,
        decoded: decoding.decoded,
        isComplete: summary.isComplete,
        finishReason: this.finishReason,
      };
      if (summary.arguments !== undefined) out.arguments = summary.arguments;
      if (summary.parseError) out.parseError = summary.parseError;
      if (summary.doubleEncoded) out.doubleEncoded = true;
      return out;
    });
    if (this.notesOverflow > 0) this.notes.push(`... and ${this.notesOverflow} more ingestion notes`);
    this.result = {
      content: this.content.join(''),
      toolCalls,
      droppedToolNames,
      finishReason: this.finishReason,
      ...(this.usage ? { usage: this.usage } : {}),
      ...(this.reasoning.isEmpty() ? {} : { reasoning: this.reasoning.text() }),
      notes: this.notes,
    };
    return this.result;
  }

  // ---- reading ---------------------------------------------------------------------------------

  private readUsage(chunk: JsonRecord): void {
    // Groq reports usage under x_groq; some providers repeat a running total on every chunk.
    const usage = isRecord(chunk.usage) ? chunk.usage : isRecord(chunk.x_groq) && isRecord(chunk.x_groq.usage) ? chunk.x_groq.usage : undefined;
    if (!usage) return;
    const prompt = usage.prompt_tokens;
    const completion = usage.completion_tokens;
    if (typeof prompt === 'number' || typeof completion === 'number') {
      this.usage = { promptTokens: typeof prompt === 'number' ? prompt : 0, completionTokens: typeof completion === 'number' ? completion : 0 };
      const cached = cachedPromptTokens(usage);
      if (cached !== undefined) this.usage.cachedPromptTokens = cached;
    }
  }

  private readDelta(delta: JsonRecord): void {
    // DeepSeek, Qwen and xAI say `reasoning_content`; OpenRouter, vLLM and Ollama `reasoning`.
    for (const field of ['reasoning_content', 'reasoning'] as const) {
      const text = delta[field];
      if (typeof text === 'string' && text !== '') this.reasoning.push(text);
    }
    const content = delta.content;
    if (typeof content === 'string') {
      if (content !== '') this.content.push(content);
    } else if (Array.isArray(content)) {
      for (const part of content) if (isRecord(part) && typeof part.text === 'string') this.content.push(part.text);
    }
    const toolCalls = delta.tool_calls;
    if (Array.isArray(toolCalls)) {
      if (toolCalls.length > 0) {
        this.deltaSerial++;
        for (let i = 0; i < toolCalls.length; i++) this.readToolCall(toolCalls[i], undefined);
      }
    } else if (toolCalls !== undefined && toolCalls !== null) {
      this.note(`chunk ${this.chunkCount}: ignored 'tool_calls' that is not an array`);
    }
    // The legacy single `function_call` gets its own key so it never merges with tool_calls.
    if (isRecord(delta.function_call)) {
      this.deltaSerial++;
      this.readToolCall({ function: delta.function_call }, 'legacy:function_call');
    }
  }

  private readToolCall(entry: unknown, forcedKey: IndexKey): void {
    if (!isRecord(entry)) {
      this.note(`chunk ${this.chunkCount}: ignored a tool_calls entry that is not an object`);
      return;
    }
    const id = readId(entry.id);
    const fn = isRecord(entry.function) ? entry.function : undefined;
    const name = fn && typeof fn.name === 'string' ? fn.name : '';
    const args = fn ? this.argumentText(fn.arguments) : '';
    // Trailing empty deltas (only an index, empty arguments) add nothing.
    if (id === '' && name === '' && args === '') return;
    const key = forcedKey !== undefined ? forcedKey : normalizeToolCallIndex(entry.index);
    const call = this.route(id, key, name, args);
    if (!call) return;
    if (name !== '') this.applyName(call, name);
    if (args !== '') {
      if (call.scan.closed && hasNonWhitespace(args)) this.ignoreAfterComplete(call, args);
      else this.appendArguments(call, args);
    }
    call.lastDelta = this.deltaSerial;
    this.current = call;
  }

  private argumentText(value: unknown): string {
    if (typeof value === 'string') return value;
    if (value === undefined || value === null) return '';
    // Arguments sent as an object (Ollama-style, GLM): kept as JSON text for history.
    this.noteOnce('object-arguments', 'tool call arguments arrived as a JSON value instead of a string; stored as JSON text');
    try {
      return JSON.stringify(value) ?? '';
    } catch {
      return '';
    }
  }

  // ---- routing ---------------------------------------------------------------------------------

  private route(id: string, key: IndexKey, name: string, args: string): CallState | undefined {
    if (id !== '') {
      const known = this.byId.get(id);
      if (known) {
        // Learn the index alias so later index-only fragments find this call.
        if (key !== undefined && !this.byIndex.has(key)) this.byIndex.set(key, known);
        return known;
      }
    }
    const candidate = key === undefined ? this.current : this.byIndex.get(key);
    if (candidate) {
      const joins = candidate.lastDelta !== this.deltaSerial && !this.startsAnotherCall(candidate, name, args);
      if (joins && id === '') return candidate;
      if (joins && candidate.id === '') {
        // The id arrived after the call's first fragment (a first fragment without id is kept).
        candidate.id = id;
        this.byId.set(id, candidate);
        return candidate;
      }
      if (!joins && id === '' && name === '' && this.isRestatement(candidate, args)) {
        this.note(`ignored a repeat of the complete arguments of ${describe(candidate)} (a duplicate summary chunk)`);
        return undefined;
      }
    }
    return this.create(id, key, candidate);
  }

  /** After a complete JSON value, more argument text or a different name cannot belong to the same call. */
  private startsAnotherCall(call: CallState, name: string, args: string): boolean {
    if (!call.scan.closed) return false;
    if (args !== '' && hasNonWhitespace(args)) return true;
    return name !== '' && call.name !== '' && name !== call.name;
  }

  private create(id: string, key: IndexKey, displaced: CallState | undefined): CallState {
    const seq = this.calls.length;
    let call: CallState;
    if (typeof key === 'number') {
      let slot = key;
      while (this.claimed.has(slot)) slot++;
      if (slot !== key)
        this.note(
          `index ${key} was already used by ${displaced ? describe(displaced) : 'another call'}; a new call${id ? ` (id ${id})` : ''} took index ${slot} instead of merging`,
        );
      this.claim(slot);
      call = new CallState(seq, slot);
      this.byIndex.set(key, call);
      if (slot !== key) this.byIndex.set(slot, call);
    } else if (key === undefined) {
      const slot = this.maxClaim + 1;
      this.claim(slot);
      call = new CallState(seq, slot);
      this.byIndex.set(slot, call);
      if (displaced) this.noteOnce('no-index-new-call', 'tool call fragments without index: a new id or a complete previous call started a new call');
    } else {
      call = new CallState(seq, opaqueSortKey(key));
      this.byIndex.set(key, call);
      if (key !== 'legacy:function_call') this.note(`tool call index ${JSON.stringify(key.slice(4))} is not a non-negative integer; the call got its own slot`);
    }
    if (id !== '') {
      call.id = id;
      this.byId.set(id, call);
    }
    this.calls.push(call);
    return call;
  }

  private claim(slot: number): void {
    this.claimed.add(slot);
    if (slot > this.maxClaim) this.maxClaim = slot;
  }

  // ---- appending -------------------------------------------------------------------------------

  private applyName(call: CallState, name: string): void {
    if (call.name === '') call.name = name;
    else if (call.name !== name) {
      // A repeated name is ignored; a different one is taken as the next piece of the name.
      call.name += name;
      this.note(`tool call name arrived in pieces: now ${JSON.stringify(call.name)}`);
    }
  }

  private appendArguments(call: CallState, args: string): void {
    if (call.tooLarge) return;
    scanArgumentText(call.scan, args);
    if (call.scan.bytes > this.maxBytes) {
      // Keep what fitted for the trace; the call will not be executed.
      call.tooLarge = true;
      this.note(`arguments of ${describe(call)} exceed ${this.maxBytes} bytes; the rest is dropped and the call will not run`);
      return;
    }
    call.addText(args);
  }

  private ignoreAfterComplete(call: CallState, args: string): void {
    if (this.isRestatement(call, args)) {
      this.note(`ignored a repeat of the complete arguments of ${describe(call)} (a duplicate summary chunk)`);
    } else {
      this.note(`ignored ${args.length} characters sent for ${describe(call)} after its arguments were already complete: ${preview(args)}`);
    }
  }

  /** True when `args` restates the call's complete arguments, verbatim, double-encoded, or as an equal value. */
  private isRestatement(call: CallState, args: string): boolean {
    if (!call.scan.closed || call.tooLarge) return false;
    const existing = call.text().trim();
    const incoming = args.trim();
    if (incoming === existing) return true;
    let value: unknown;
    try {
      value = JSON.parse(incoming);
    } catch {
      return false;
    }
    if (typeof value === 'string' && value.trim() === existing) return true;
    try {
      return canonicalJson(value) === canonicalJson(JSON.parse(existing));
    } catch {
      return false;
    }
  }

  // ---- notes -----------------------------------------------------------------------------------

  private note(text: string): void {
    if (this.notes.length < MAX_NOTES) this.notes.push(text);
    else this.notesOverflow++;
  }

  private noteOnce(key: string, text: string): void {
    if (this.noted.has(key)) return;
    this.noted.add(key);
    this.note(text);
  }
}

/** A provider id, unchanged; '' when absent ('' and null are read as absent). */
function readId(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return '';
}

function describe(call: CallState): string {
  return `call #${call.seq}${call.id ? ` (id ${call.id})` : ''}${call.name ? ` '${call.name}'` : ''}`;
}

function preview(text: string): string {
  return JSON.stringify(clip(text, 120));
}

/**
 * Prompt caching: how much of the prompt was served from the provider's cache (priced lower), under
 * whichever name the endpoint uses: OpenAI and most compatible endpoints
 * `prompt_tokens_details.cached_tokens`, DeepSeek `prompt_cache_hit_tokens`, Anthropic's models
 * through gateways (LiteLLM, OpenRouter) `cache_read_input_tokens`, Moonshot a top-level
 * `cached_tokens`. The first positive count wins; none: undefined.
 */
function cachedPromptTokens(usage: JsonRecord): number | undefined {
  const details = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details.cached_tokens : undefined;
  for (const value of [details, usage.prompt_cache_hit_tokens, usage.cache_read_input_tokens, usage.cached_tokens])
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return Math.floor(value);
  return undefined;
}
