// A streamed chat completion shaped like OpenAI's own (the fields of every chunk, argument
// fragments of a few characters, parallel calls one after the other, the usage chunk, [DONE]):
// a short sentence, then three tool calls, one of them writing a 2 KB source file. The same bytes
// are served to every client in the streaming benchmark.

export interface RecordedCall {
  id: string;
  name: string;
  arguments: string;
}

export interface Recording {
  /** The whole SSE body. */
  body: string;
  /** Its events, each with its terminating blank line. */
  events: string[];
  content: string;
  calls: RecordedCall[];
}

const CREATED = 1_760_000_000;

/** Deterministic fragment sizes of 1-8 characters, like a tokenizer's pieces. */
function pieceSizes(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return 1 + (s % 8);
  };
}

function split(text: string, next: () => number): string[] {
  const parts: string[] = [];
  for (let i = 0; i < text.length;) {
    const n = next();
    parts.push(text.slice(i, i + n));
    i += n;
  }
  return parts;
}

function sourceFile(): string {
  const lines: string[] = ['import { readFile } from "node:fs/promises";', ''];
  for (let i = 0; lines.join('\n').length < 2000; i++) {
    lines.push(
      `export async function load${i}(path: string): Promise<string> {`,
      `  const text = await readFile(path, "utf8"); // part ${i} \u2014 caf\u00e9`,
      '  return text.trim();',
      '}',
      '',
    );
  }
  return lines.join('\n');
}

export function buildRecording(): Recording {
  const next = pieceSizes(42);
  const events: string[] = [];
  let obfuscation = 0;
  const emit = (delta: Record<string, unknown>, finishReason: string | null = null): void => {
    const chunk = {
      id: 'chatcmpl-CdRecordedStream0001',
      object: 'chat.completion.chunk',
      created: CREATED,
      model: 'gpt-4.1-2025-04-14',
      service_tier: 'default',
      system_fingerprint: 'fp_b3f1157249',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      obfuscation: `x${(obfuscation++ * 7919).toString(36)}`,
    };
    events.push(`data: ${JSON.stringify(chunk)}\n\n`);
  };
  const content = "I'll read the two files, then write the loader module.";
  emit({ role: 'assistant', content: '', refusal: null });
  for (const piece of split(content, next)) emit({ content: piece });
  const calls: RecordedCall[] = [
    { id: 'call_8Kq2vYt1Lr0aPz3mN5bW7cXe', name: 'read_file', arguments: JSON.stringify({ path: 'src/config/settings.ts' }) },
    { id: 'call_Qm4Zr8Tn2Vb6Xc1Ld9Fh3Jk0', name: 'read_file', arguments: JSON.stringify({ path: 'src/io/loader.ts', maxBytes: 65536 }) },
    { id: 'call_Wp7Hs3Gd5Ka9Ue2Ry6Io1Nt4', name: 'write_file', arguments: JSON.stringify({ path: 'src/io/loaders.ts', content: sourceFile() }) },
  ];
  calls.forEach((call, index) => {
    emit({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
    for (const piece of split(call.arguments, next)) emit({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  emit({}, 'tool_calls');
  events.push(
    `data: ${JSON.stringify({ id: 'chatcmpl-CdRecordedStream0001', object: 'chat.completion.chunk', created: CREATED, model: 'gpt-4.1-2025-04-14', service_tier: 'default', system_fingerprint: 'fp_b3f1157249', choices: [], usage: { prompt_tokens: 1841, completion_tokens: 702, total_tokens: 2543, prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } }, obfuscation: 'q' })}\n\n`,
  );
  events.push('data: [DONE]\n\n');
  return { body: events.join(''), events, content, calls };
}
