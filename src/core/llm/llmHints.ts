// How an LLM error tells the user what to do depends on where Cortex runs: the editor has a command
// to store a key and settings by key, a shell has environment variables and flags. The client is
// given the host's hints; messages never name a remedy the user cannot reach.

/** The settings an LLM error message may point at. */
export type LlmSettingKey =
  'cortex.llm.baseUrl' | 'cortex.llm.model' | 'cortex.llm.fallbackModels' | 'cortex.llm.requestTimeoutSeconds' | 'cortex.llm.streamIdleTimeoutSeconds';

export interface LlmHints {
  /** What to do about a rejected API key: one sentence, ending with a period. */
  apiKey: string;
  /** How the user names a setting where they change it (a settings key, a flag). */
  setting: (key: LlmSettingKey) => string;
  /** How to make an organisation's certificate authority trusted: one sentence, ending with a period. */
  trustCa: string;
}

/** The extension's wording: the key command and settings by their keys. */
export const EDITOR_LLM_HINTS: LlmHints = {
  apiKey: "Run 'Cortex: Set API key' or set OPENAI_API_KEY.",
  setting: (key) => key,
  trustCa: "If your organisation's own CA signed it, add that CA to the system's trusted certificates, which VS Code reads.",
};
