// The claim reader (docs/design.md, “The verifier and how a step ends”): finds the sentences of a
// step's answer that claim work the record must back. It reads English conservatively: a missed
// claim costs less than failing an honest step, so only plain, affirmative, past-tense claims
// count. Fenced code blocks are not read (a quoted path there claims nothing), nor are negated,
// conditional or future sentences ("did not change X", "you should update Y", "will add Z").

/** A file the answer says the step changed, or tests/a build it says passed. */
export type Claim = { kind: 'file'; sentence: string; paths: string[] } | { kind: 'checks_passed'; sentence: string };

const FILE_VERBS = /\b(?:created|added|wrote|written|updated|modified|edited|fixed|deleted|removed|rewrote|rewritten|overwrote|overwritten|saved|changed)\b/i;
const NEGATION =
  /\b(?:not|no|never|nothing|none|neither|nor|without|didn't|don't|doesn't|wasn't|weren't|isn't|aren't|haven't|hasn't|hadn't|won't|can't|cannot|couldn't|unable|failed to)\b|n't\b/i;
/** Sentences that propose, ask or plan rather than report. */
const NOT_A_REPORT =
  /\b(?:will|would|should|could|can|may|might|must|need to|needs to|have to|has to|please|if|unless|whether|try|plan to|going to|next)\b|\?\s*$/i;
const TESTS = /\b(?:tests?|test suite|specs?|builds?|compil(?:ed|ation|es)|lint(?:ing|er)?|type-?checks?|typecheck(?:ing)?)\b/i;
const PASSED = /\b(?:pass(?:ed|es)?|passing|succeed(?:ed|s)?|successful(?:ly)?|green|ran successfully|completed successfully)\b/i;
/** A report that also mentions failures is a mixed report, not a claim that everything passed. */
const FAILED = /\b(?:fail(?:ed|s|ing|ures?)?|error(?:s|ed)?|broken|red)\b/i;

/** Names with a dot that are not files (abbreviations, product names). */
const NOT_FILES = /^(?:e\.g|i\.e|etc|vs|a\.m|p\.m|[A-Z][a-z]+\.js)$/;
const EXTENSION = /\.[A-Za-z][A-Za-z0-9]{0,7}$/;

/** The answer without fenced code blocks: whatever is quoted there claims nothing. */
function withoutCodeBlocks(text: string): string {
  return text.replace(/(^|\n)\s*(```|~~~)[^\n]*\n[\s\S]*?(\n\s*\2[^\n]*(?=\n|$)|$)/g, '\n');
}

/** Sentences: split at line breaks and at . ! ? followed by a space (so "a.test.js" stays whole). */
function sentencesOf(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+/)
    .map((sentence) => sentence.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim())
    .filter((sentence) => sentence.length > 0);
}

/** A token written as a path: it has a '/' (not a URL) or ends with a file extension. */
function pathOf(token: string): string | undefined {
  const bare = token.replace(/^[`'"(<[*_]+|[`'")>\]*_,;:.!?]+$/g, '');
  if (!bare || /^[a-z][a-z0-9+.-]*:\/\//i.test(bare) || bare.startsWith('@') || bare.includes('=')) return undefined;
  if (/^[\d.]+$/.test(bare) || NOT_FILES.test(bare)) return undefined;
  if (bare.includes('/')) return /[A-Za-z0-9_]/.test(bare) ? bare : undefined;
  return EXTENSION.test(bare) && /^[\w.-]+$/.test(bare) ? bare : undefined;
}

/** The paths written in a sentence, in order, without repeats. */
export function pathsIn(sentence: string): string[] {
  const paths: string[] = [];
  for (const token of sentence.split(/\s+/)) {
    const path = pathOf(token);
    if (path && !paths.includes(path)) paths.push(path);
  }
  return paths;
}

/**
 * Clauses: a sentence cut at commas, semicolons and the words that join two actions, so in "read
 * a.ts and updated b.ts" only b.ts is said to be updated.
 */
function clausesOf(sentence: string): string[] {
  return sentence.split(/[,;:]\s+|\s+(?:and|but|then|after|before|while|because|so|from|using|based on|like|as in|per)\s+/i);
}

/** The paths a sentence says were changed: those in a clause with a change verb. */
function changedPathsIn(sentence: string): string[] {
  const paths: string[] = [];
  for (const clause of clausesOf(sentence)) {
    if (!FILE_VERBS.test(clause)) continue;
    for (const path of pathsIn(clause)) if (!paths.includes(path)) paths.push(path);
  }
  return paths;
}

/** The claims of an answer, in order. */
export function readClaims(answer: string): Claim[] {
  const claims: Claim[] = [];
  for (const sentence of sentencesOf(withoutCodeBlocks(answer))) {
    if (NEGATION.test(sentence) || NOT_A_REPORT.test(sentence)) continue;
    const paths = changedPathsIn(sentence);
    if (paths.length > 0) claims.push({ kind: 'file', sentence, paths });
    if (TESTS.test(sentence) && PASSED.test(sentence) && !FAILED.test(sentence)) claims.push({ kind: 'checks_passed', sentence });
  }
  return claims;
}
