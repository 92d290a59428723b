// The shape of a repair request and the reading of its reply, shared by the name and the argument
// repair. The reply goes through the one reply reader (llm/replyJson.ts): fences, prose and
// reasoning blocks are tolerated, anything else is a failed reply.
import type { ChatMessage } from '../llm/llmTypes';
import { extractJsonObjects } from '../llm/replyJson';
import { clip } from '../text/clip';

/** A repair request: the instructions, then what to repair as indented JSON. */
export function repairMessages(systemPrompt: string, body: unknown): ChatMessage[] {
  return [
    { role: 'system', content: systemPrompt },
    { role: 'user', content: JSON.stringify(body, null, 2) },
  ];
}

/** The `repairs` array of a repair reply, or an error saying why the reply is unusable. */
export function readRepairsArray(content: string): { ok: true; repairs: unknown[] } | { ok: false; error: string } {
  const objects = extractJsonObjects(content);
  if (objects.length === 0) return { ok: false, error: 'the reply is not a JSON object' };
  const withRepairs = objects.find((value) => Array.isArray(value.repairs));
  if (!withRepairs) return { ok: false, error: 'the reply has no "repairs" array' };
  return { ok: true, repairs: withRepairs.repairs as unknown[] };
}

/** A short excerpt of text for a prompt, marked when cut. */
export function excerpt(text: string, maxChars: number): string {
  return clip(text, maxChars, { marker: (omitted) => `… [${omitted} more characters]` });
}
