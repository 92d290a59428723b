import type { LlmHints, LlmSettingKey } from '../core/llm/llmHints';

const FLAGS: Partial<Record<LlmSettingKey, string>> = {
  'cortex.llm.baseUrl': '--base-url',
  'cortex.llm.model': '--model',
  'cortex.llm.fallbackModels': '--fallback-model',
};

/** LLM error remedies in a shell's terms: the environment variable and the flags. */
export const CLI_LLM_HINTS: LlmHints = {
  apiKey: 'Set OPENAI_API_KEY to a key this endpoint accepts.',
  setting: (key) => FLAGS[key] ?? `${key} in the --config file`,
  trustCa: "If your organisation's own CA signed it, set NODE_EXTRA_CA_CERTS to that CA's PEM file.",
};
