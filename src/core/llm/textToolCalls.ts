import { isRecord } from '../text/isRecord';

// Tool calls a model wrote into its text because the server that runs it has no tool-call parser
// (Ollama and llama.cpp templates, vLLM without --tool-call-parser, LM Studio). Four documented
// shapes are read:
//   hermes       <tool_call>{"name": "f", "arguments": {...}}</tool_call>      (Hermes, Qwen 2.5/3)
//   qwen3-coder  <tool_call><function=f><parameter=p>value</parameter></function></tool_call>
//   mistral      [TOOL_CALLS][{"name": "f", "arguments": {...}}]  or  [TOOL_CALLS]f[ARGS]{...}
//   llama3       <|python_tag|>{"name": "f", "parameters": {...}}  (several joined by ";")
// Pure and strict: the text must hold complete, well-formed blocks of exactly one format, or
// nothing is read at all. A half-written block (an opening marker without its end, JSON that does
// not close) makes the whole text an answer, never a call.

export type TextToolCallFormat = 'hermes' | 'qwen3-coder' | 'mistral' | 'llama3';

export interface TextToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export type TextToolCallParse =
  /** Complete blocks of one format; `text` is the content with them taken out (the answer around them). */
  | { ok: true; format: TextToolCallFormat; calls: TextToolCall[]; text: string }
  /** Markers were found but the blocks are not complete and well-formed: nothing is executed. */
  | { ok: false; format: TextToolCallFormat | 'mixed'; problem: string };

/** The JSON Schema of an offered tool, to type Qwen3-Coder's parameter text; undefined when unknown. */
export type SchemaLookup = (name: string) => Record<string, unknown> | undefined;

const MARKERS: Array<[TextToolCallFormat, RegExp]> = [
  ['qwen3-coder', /<function=/],
  ['hermes', /<\/?tool_call>/],
  ['mistral', /\[TOOL_CALLS\]/],
  ['llama3', /<\|python_tag\|>/],
];

/** Reads the tool calls written in `content`, or undefined when it holds no marker of any known format. */
export function parseTextToolCalls(content: string, schemaOf: SchemaLookup = () => undefined): TextToolCallParse | undefined {
  const found = MARKERS.filter(([, marker]) => marker.test(content)).map(([format]) => format);
  // Qwen3-Coder wraps its <function=…> blocks in <tool_call> too: that pair is one format.
  const formats = found.includes('qwen3-coder') ? found.filter((f) => f !== 'hermes') : found;
  if (formats.length === 0) return undefined;
  if (formats.length > 1) return { ok: false, format: 'mixed', problem: `the text mixes the markers of ${formats.join(' and ')}` };
  const format = formats[0];
  try {
    switch (format) {
      case 'hermes':
        return withFormat('hermes', parseHermes(content));
      case 'qwen3-coder':
        return withFormat('qwen3-coder', parseQwen3Coder(content, schemaOf));
      case 'mistral':
        return withFormat('mistral', parseMistral(content));
      case 'llama3':
        return withFormat('llama3', parseLlama3(content));
    }
  } catch (error) {
    return { ok: false, format, problem: (error as Error).message };
  }
}

class Malformed extends Error {}

function withFormat(format: TextToolCallFormat, parsed: { calls: TextToolCall[]; text: string }): TextToolCallParse {
  if (parsed.calls.length === 0) return { ok: false, format, problem: 'no complete call' };
  return { ok: true, format, calls: parsed.calls, text: parsed.text.trim() };
}

/** `{"name": …, "arguments" | "parameters": {…} or a JSON string of one}` as a call. */
function callFromJson(value: unknown, where: string): TextToolCall {
  if (!isRecord(value)) throw new Malformed(`${where} is not a JSON object`);
  const name = value.name;
  if (typeof name !== 'string' || name.trim() === '') throw new Malformed(`${where} has no "name"`);
  let args: unknown = value.arguments ?? value.parameters ?? {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args) as unknown;
    } catch {
      throw new Malformed(`the arguments of ${where} are not JSON`);
    }
  }
  if (!isRecord(args)) throw new Malformed(`the arguments of ${where} are not a JSON object`);
  return { name: name.trim(), arguments: args };
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Malformed(`${where} is not complete JSON`);
  }
}

/** Every `<open>…<close>` block; an open or close marker left over means a half-written block. */
function blocks(content: string, open: string, close: string): { inner: string[]; text: string } {
  const inner: string[] = [];
  let text = '';
  let at = 0;
  for (;;) {
    const start = content.indexOf(open, at);
    const strayClose = content.indexOf(close, at);
    if (start < 0) {
      if (strayClose >= 0) throw new Malformed(`${close} without ${open}`);
      text += content.slice(at);
      return { inner, text };
    }
    if (strayClose >= 0 && strayClose < start) throw new Malformed(`${close} without ${open}`);
    const end = content.indexOf(close, start + open.length);
    if (end < 0) throw new Malformed(`${open} is not closed`);
    const body = content.slice(start + open.length, end);
    if (body.includes(open)) throw new Malformed(`${open} inside another`);
    inner.push(body);
    text += content.slice(at, start);
    at = end + close.length;
  }
}

function parseHermes(content: string): { calls: TextToolCall[]; text: string } {
  const found = blocks(content, '<tool_call>', '</tool_call>');
  return {
    calls: found.inner.map((body, i) => callFromJson(parseJson(body.trim(), `<tool_call> block ${i + 1}`), `<tool_call> block ${i + 1}`)),
    text: found.text,
  };
}

function parseQwen3Coder(content: string, schemaOf: SchemaLookup): { calls: TextToolCall[]; text: string } {
  // The <tool_call> wrapper is optional (some templates drop it); when present it must pair up
  // and hold nothing but its function.
  const wrapped = /<\/?tool_call>/.test(content);
  const parts = wrapped ? blocks(content, '<tool_call>', '</tool_call>') : { inner: [content], text: '' };
  if (wrapped && parts.text.includes('<function=')) throw new Malformed('a <function=…> block outside <tool_call>');
  const calls: TextToolCall[] = [];
  let text = parts.text;
  for (const part of parts.inner) {
    const functions = blocksByPattern(part, /<function=([^>\n]+)>/g, '</function>');
    if (!wrapped) text += functions.text;
    else if (functions.text.trim() !== '') throw new Malformed('text inside a <tool_call> block besides its function');
    for (const { name, body } of functions.found) {
      const properties = schemaProperties(schemaOf(name.trim()));
      const params = blocksByPattern(body, /<parameter=([^>\n]+)>/g, '</parameter>');
      if (params.text.trim() !== '') throw new Malformed(`text inside <function=${name}> besides its parameters`);
      const args: Record<string, unknown> = {};
      for (const param of params.found) args[param.name.trim()] = typedValue(param.body.replace(/^\n/, '').replace(/\n$/, ''), properties[param.name.trim()]);
      calls.push({ name: name.trim(), arguments: args });
    }
  }
  return { calls, text };
}

/** Blocks opened by a pattern with a name (`<function=NAME>`) and closed by a fixed marker. */
function blocksByPattern(content: string, open: RegExp, close: string): { found: Array<{ name: string; body: string }>; text: string } {
  const found: Array<{ name: string; body: string }> = [];
  let text = '';
  let at = 0;
  open.lastIndex = 0;
  for (let match = open.exec(content); match; match = open.exec(content)) {
    if (match.index < at) throw new Malformed('overlapping blocks');
    const before = content.slice(at, match.index);
    if (before.includes(close)) throw new Malformed(`${close} without its opening`);
    const end = content.indexOf(close, open.lastIndex);
    if (end < 0) throw new Malformed(`<${match[0].slice(1, match[0].indexOf('='))}=${match[1]}> is not closed`);
    found.push({ name: match[1], body: content.slice(open.lastIndex, end) });
    text += before;
    at = end + close.length;
    open.lastIndex = at;
  }
  const rest = content.slice(at);
  if (rest.includes(close)) throw new Malformed(`${close} without its opening`);
  return { found, text: text + rest };
}

function schemaProperties(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  return schema && isRecord(schema.properties) ? schema.properties : {};
}

/** Qwen3-Coder writes every value as text: a parameter the schema says is a string stays text, others are read as JSON when they parse. */
function typedValue(raw: string, property: unknown): unknown {
  const type = isRecord(property) ? property.type : undefined;
  const types = Array.isArray(type) ? type : [type];
  if (types.includes('string') || (type === undefined && !isRecord(property))) return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** The end (exclusive) of the JSON object or array starting at `start`, or -1 when it does not close. */
function jsonEnd(text: string, start: number): number {
  const open = text[start];
  if (open !== '{' && open !== '[') return -1;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function parseMistral(content: string): { calls: TextToolCall[]; text: string } {
  const marker = '[TOOL_CALLS]';
  const first = content.indexOf(marker);
  const text = content.slice(0, first);
  const calls: TextToolCall[] = [];
  let rest = content.slice(first);
  while (rest.startsWith(marker)) {
    rest = rest.slice(marker.length).trimStart();
    if (rest.startsWith('[')) {
      // v0.3: one JSON array of calls.
      const end = jsonEnd(rest, 0);
      if (end < 0) throw new Malformed('the [TOOL_CALLS] array is not complete JSON');
      const list = parseJson(rest.slice(0, end), 'the [TOOL_CALLS] array');
      if (!Array.isArray(list)) throw new Malformed('[TOOL_CALLS] is not followed by an array');
      list.forEach((item, i) => calls.push(callFromJson(item, `[TOOL_CALLS] item ${i + 1}`)));
      rest = rest.slice(end).trimStart();
    } else {
      // v11 tokenizers: NAME[ARGS]{…}, one per [TOOL_CALLS].
      const args = rest.indexOf('[ARGS]');
      if (args <= 0) throw new Malformed('[TOOL_CALLS] is followed by neither an array nor NAME[ARGS]');
      const name = rest.slice(0, args).trim();
      if (!/^[A-Za-z0-9_.:-]+$/.test(name)) throw new Malformed('the name after [TOOL_CALLS] is not a tool name');
      const body = rest.slice(args + '[ARGS]'.length).trimStart();
      const end = jsonEnd(body, 0);
      if (end < 0) throw new Malformed(`the [ARGS] of ${name} are not complete JSON`);
      calls.push(callFromJson({ name, arguments: parseJson(body.slice(0, end), `the [ARGS] of ${name}`) }, `[TOOL_CALLS]${name}`));
      rest = body.slice(end).trimStart();
    }
  }
  if (rest.replace(/<\/s>$/, '').trim() !== '') throw new Malformed('text after the [TOOL_CALLS] calls');
  return { calls, text };
}

function parseLlama3(content: string): { calls: TextToolCall[]; text: string } {
  const marker = '<|python_tag|>';
  const first = content.indexOf(marker);
  const text = content.slice(0, first);
  let rest = content
    .slice(first + marker.length)
    .replace(/<\|(eom_id|eot_id)\|>\s*$/, '')
    .trim();
  if (rest.includes(marker)) throw new Malformed('<|python_tag|> appears twice');
  const calls: TextToolCall[] = [];
  while (rest !== '') {
    const end = jsonEnd(rest, 0);
    if (end < 0) throw new Malformed('the <|python_tag|> call is not complete JSON');
    calls.push(callFromJson(parseJson(rest.slice(0, end), 'the <|python_tag|> call'), `<|python_tag|> call ${calls.length + 1}`));
    rest = rest.slice(end).trim();
    if (rest.startsWith(';')) rest = rest.slice(1).trim();
    else if (rest !== '') throw new Malformed('text after the <|python_tag|> call');
  }
  return { calls, text };
}
