import type { FlatConfig } from '../config/configSchema';
import type { OpenAiClientOptions } from './openAiClient';

/** The OpenAI client's options that come from the settings (key, logger and hints are the host's). */
export function clientOptionsFromSettings(config: FlatConfig): Omit<OpenAiClientOptions, 'apiKey' | 'logger' | 'hints'> {
  return {
    baseUrl: config['cortex.llm.baseUrl'],
    model: config['cortex.llm.model'],
    fallbackModels: config['cortex.llm.fallbackModels'],
    requestTimeoutMs: config['cortex.llm.requestTimeoutSeconds'] * 1000,
    streamIdleTimeoutMs: config['cortex.llm.streamIdleTimeoutSeconds'] * 1000,
    maxRetries: config['cortex.llm.maxRetries'],
    temperature: config['cortex.llm.temperature'],
  };
}
