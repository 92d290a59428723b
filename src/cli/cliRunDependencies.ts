import type { FlatConfig } from '../core/config/configSchema';
import { clientOptionsFromSettings } from '../core/llm/clientSettings';
import { createOpenAiClient } from '../core/llm/openAiClient';
import { defaultCliMemoryFile } from '../core/memory/memoryPath';
import { CLI_LLM_HINTS } from './cliHints';

/**
 * What `cortex run` and `cortex resume` give the agent: the LLM client, built here so that its
 * errors name shell remedies (OPENAI_API_KEY, flags), and the workspace memory file.
 */
export function cliRunDependencies(loaded: { config: FlatConfig; workspace: string; memory?: string }, env: NodeJS.ProcessEnv) {
  return {
    llm: createOpenAiClient({ ...clientOptionsFromSettings(loaded.config), apiKey: env.OPENAI_API_KEY || undefined, hints: CLI_LLM_HINTS }),
    memoryFile: loaded.memory ?? defaultCliMemoryFile(loaded.workspace, env),
  };
}
