import { isRecord } from '../text/isRecord';

// Reading JSON out of a model's text reply: the one reader behind the planner, the replanner and
// the repair calls. Models asked for "JSON only" still wrap it in ```json fences, add a sentence
// before or after it, or think aloud first: reasoning models served through OpenAI-compatible
// endpoints put a `<think>…</think>` block before the answer, and some templates open that block
// in the prompt, so the reply starts mid-thought and only the closing `</think>` appears.

const THINK_BLOCK = /<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi;
const LEADING_UNOPENED_THINK = /^[\s\S]*?<\/(?:think|thinking|reasoning)>/i;

/** The reply without its reasoning: closed think blocks, and text before an unopened `</think>`. */
export function stripReasoning(content: string): string {
  const withoutBlocks = content.replace(THINK_BLOCK, '');
  return /<\/(?:think|thinking|reasoning)>/i.test(withoutBlocks) ? withoutBlocks.replace(LEADING_UNOPENED_THINK, '') : withoutBlocks;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** End of the balanced `{...}` starting at `start` (string-aware), or -1. */
function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

/**
 * The JSON objects a reply contains, reasoning removed: the whole reply, else each ``` fence, else
 * each top-level `{...}` in the prose that parses. Empty when there is none.
 */
export function extractJsonObjects(content: string): Array<Record<string, unknown>> {
  const text = stripReasoning(content).trim();
  const whole = tryParse(text);
  if (isRecord(whole)) return [whole];
  const fenced: Array<Record<string, unknown>> = [];
  for (const match of text.matchAll(/```[a-zA-Z]*[ \t]*\r?\n?([\s\S]*?)```/g)) {
    const value = tryParse(match[1].trim());
    if (isRecord(value)) fenced.push(value);
  }
  if (fenced.length > 0) return fenced;
  const found: Array<Record<string, unknown>> = [];
  for (let i = text.indexOf('{'); i !== -1;) {
    const end = matchingBrace(text, i);
    const value = end === -1 ? undefined : tryParse(text.slice(i, end + 1));
    if (isRecord(value)) {
      found.push(value);
      i = text.indexOf('{', end + 1);
    } else {
      i = text.indexOf('{', i + 1);
    }
  }
  return found;
}
