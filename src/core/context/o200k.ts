// The tokenizer (o200k_base) as its own module: the bundles keep `require('./o200k')` and load
// dist/o200k.js (shared by the CLI's and the extension's bundles) only when the first count is
// made (scripts/build.mjs).
export { countTokens, decode, encode } from 'gpt-tokenizer/encoding/o200k_base';
