// How long a rate-limited endpoint asks to wait, from its own words when it sends no Retry-After
// header: OpenAI "Please try again in 20s" / "in 1m30s" / "in 6ms", Gemini "Please retry in
// 20.5s", Groq and others "try again in 2.5 seconds", "retry after 20 seconds". Only these
// phrasings count, so a number elsewhere in a message is never read as a wait.

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
};
const PHRASE = /\b(?:try again|retry)\s+(?:in|after)\s+((?:\d+(?:\.\d+)?\s*(?:ms|secs?|seconds?|s|mins?|minutes?|m|hours?|h)\s*)+)/i;
const PART = /(\d+(?:\.\d+)?)\s*(ms|secs?|seconds?|s|mins?|minutes?|m|hours?|h)/gi;

/** Milliseconds the message asks to wait, or undefined when it names no wait. */
export function retryAfterFromText(message: string): number | undefined {
  const phrase = PHRASE.exec(message);
  if (!phrase) return undefined;
  let total = 0;
  for (const [, amount, unit] of phrase[1].matchAll(PART)) total += Number(amount) * UNIT_MS[unit.toLowerCase()];
  return Number.isFinite(total) ? Math.ceil(total) : undefined;
}
