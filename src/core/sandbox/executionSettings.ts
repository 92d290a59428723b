import type { FlatConfig } from '../config/configSchema';

// The settings that shape how run_command starts a process: the OS sandbox (and what it hides) and which environment
// variables beyond the fixed allowlist reach the command.

export type SandboxMode = 'auto' | 'required' | 'off';

export interface CommandExecutionSettings {
  /** auto: sandbox when available, else run unsandboxed (the run says so once); required: refuse without it; off: never. */
  sandboxMode: SandboxMode;
  /** Whether sandboxed commands may use the network. */
  network: boolean;
  /** Extra environment variable names passed to commands. */
  envPassthrough: readonly string[];
  /** Places covered in the sandbox besides the default secrets of the home folder (`~/…` or absolute). */
  hiddenPaths?: readonly string[];
}

export const DEFAULT_EXECUTION_SETTINGS: CommandExecutionSettings = Object.freeze({ sandboxMode: 'auto', network: false, envPassthrough: Object.freeze([]) });

export type ExecutionConfig = Pick<
  FlatConfig,
  'cortex.sandbox.mode' | 'cortex.sandbox.network' | 'cortex.sandbox.hiddenPaths' | 'cortex.execution.envPassthrough'
>;

export function executionSettingsFromConfig(config: ExecutionConfig): CommandExecutionSettings {
  return {
    sandboxMode: config['cortex.sandbox.mode'],
    network: config['cortex.sandbox.network'],
    envPassthrough: config['cortex.execution.envPassthrough'],
    hiddenPaths: config['cortex.sandbox.hiddenPaths'],
  };
}
