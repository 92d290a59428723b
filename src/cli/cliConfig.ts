import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseConfig, type FlatConfig } from '../core/config/configSchema';
import { UsageError, type CliArgs } from './cliArgs';

/** Settings for a CLI run: the --config JSON file (same keys as VS Code), then flags on top. */
export function loadCliConfig(args: CliArgs, cwd: string): { config: FlatConfig; workspace: string } {
  let fileValues: Record<string, unknown> = {};
  if (args.configFile) {
    const file = resolve(cwd, args.configFile);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read --config ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    try {
      fileValues = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`--config ${file} is not valid JSON: ${(error as Error).message}`);
    }
    if (!fileValues || typeof fileValues !== 'object' || Array.isArray(fileValues)) throw new UsageError(`--config ${file} must hold a JSON object of "cortex.*" settings`);
  }
  const overrides: Record<string, unknown> = {};
  if (args.baseUrl) overrides['cortex.llm.baseUrl'] = args.baseUrl;
  if (args.model) overrides['cortex.llm.model'] = args.model;
  if (args.fallbackModels.length) overrides['cortex.llm.fallbackModels'] = args.fallbackModels;
  let config: FlatConfig;
  try {
    config = parseConfig({ ...fileValues, ...overrides });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const workspace = resolve(cwd, args.workspace);
  let isDir = false;
  try {
    isDir = statSync(workspace).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UsageError(`--workspace ${workspace} is not a directory`);
  return { config, workspace };
}
