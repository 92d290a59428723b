import type { FlatConfig } from '../config/configSchema';
import type { OpenAiClientOptions } from './openAiClient';
import { requestExtrasFromSettings } from './requestExtras';

/**
 * The OpenAI client's options that come from the settings (key, logger and hints are the host's);
 * `${env:NAME}` in cortex.llm.headers and cortex.llm.query is resolved from `env` (throws
 * RequestExtrasError naming the setting when a variable is not set).
 */
export function clientOptionsFromSettings(config: FlatConfig, env: NodeJS.ProcessEnv = process.env): Omit<OpenAiClientOptions, 'apiKey' | 'logger' | 'hints'> {
  const extras = requestExtrasFromSettings(config, env);
  return {
    headers: extras.headers,
    query: extras.query,
    baseUrl: config['cortex.llm.baseUrl'],
    model: config['cortex.llm.model'],
    fallbackModels: config['cortex.llm.fallbackModels'],
    requestTimeoutMs: config['cortex.llm.requestTimeoutSeconds'] * 1000,
    streamIdleTimeoutMs: config['cortex.llm.streamIdleTimeoutSeconds'] * 1000,
    maxRetries: config['cortex.llm.maxRetries'],
    temperature: config['cortex.llm.temperature'],
  };
}
