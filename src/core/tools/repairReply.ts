// Reading the JSON a repair call replies with. Models asked for "JSON only" still wrap it in code
// fences or a sentence now and then; those wrappers are tolerated, anything else is a failed reply.

/** The `repairs` array of a repair reply, or an error saying why the reply is unusable. */
export function readRepairsArray(content: string): { ok: true; repairs: unknown[] } | { ok: false; error: string } {
  const value = extractJsonObject(content);
  if (value === undefined) return { ok: false, error: 'the reply is not a JSON object' };
  const repairs = (value as { repairs?: unknown }).repairs;
  if (!Array.isArray(repairs)) return { ok: false, error: 'the reply has no "repairs" array' };
  return { ok: true, repairs };
}

/** The first JSON object in `content` (bare, fenced, or inside prose), else undefined. */
export function extractJsonObject(content: string): Record<string, unknown> | undefined {
  const attempts = [content.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(content);
  if (fenced) attempts.push(fenced[1].trim());
  const first = content.indexOf('{');
  const last = content.lastIndexOf('}');
  if (first >= 0 && last > first) attempts.push(content.slice(first, last + 1));
  for (const text of attempts) {
    try {
      const value: unknown = JSON.parse(text);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // try the next reading
    }
  }
  return undefined;
}

/** A short excerpt of text for a prompt, marked when cut. */
export function excerpt(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}… [${text.length - maxChars} more characters]`;
}
