import type { FlatConfig } from '../core/config/configSchema';
import type { McpServerDefinition } from '../core/config/mcpTypes';
import { clientOptionsFromSettings } from '../core/llm/clientSettings';
import { honoursEnvProxy, proxyFor } from '../core/llm/envProxy';
import { createOpenAiClient } from '../core/llm/openAiClient';
import { defaultCliMemoryFile } from '../core/memory/memoryPath';
import { CLI_LLM_HINTS } from './cliHints';

/**
 * What `cortex run` and `cortex resume` give the agent alike: the LLM client, built here so that
 * its errors name shell remedies (OPENAI_API_KEY, flags), the workspace memory file, the MCP
 * servers, and the CLI's stance: the workspace is trusted (the user ran the command in it) and a
 * denied approval gate ends the step (nobody is there to press Retry).
 */
export function cliRunDependencies(
  loaded: { config: FlatConfig; workspace: string; memory?: string },
  env: NodeJS.ProcessEnv,
  mcpServers: McpServerDefinition[] | undefined,
) {
  return {
    config: loaded.config,
    llm: createOpenAiClient({
      ...clientOptionsFromSettings(loaded.config, env),
      apiKey: env.OPENAI_API_KEY || undefined,
      hints: CLI_LLM_HINTS,
      proxy: honoursEnvProxy(process.execArgv, env) ? proxyFor(loaded.config['cortex.llm.baseUrl'], env) : undefined,
    }),
    memoryFile: loaded.memory ?? defaultCliMemoryFile(loaded.workspace, env),
    mcpServers,
    processEnv: env,
    trusted: true,
    holdDeniedGates: false,
  };
}
