// A tool name that is empty or made only of symbols (e.g. "⚙") is provider noise, not a
// call the model meant. It is dropped at ingestion and reported; the rest of the batch is kept.

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** True when the name has at least one letter or digit (any script). */
export function isUsableToolName(name: string): boolean {
  return name.trim().length > 0 && LETTER_OR_DIGIT.test(name);
}
