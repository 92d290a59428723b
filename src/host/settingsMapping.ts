import { CONFIG_KEYS, SECURITY_KEYS, type ConfigKey } from '../core/config/configSchema';
import { isRecord } from '../core/text/isRecord';

// Pure half of the settings reader (no `vscode` import, so it is unit-tested in plain Node):
// turns VS Code's per-scope `inspect()` results into the flat input of `parseConfig`.

/** The scopes of one setting as `WorkspaceConfiguration.inspect` reports them. */
export interface SettingInspection {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

export interface MappedSettings {
  /** Flat `cortex.*` values chosen by the user; `undefined` means "schema default". */
  input: Record<string, unknown>;
  /** Security keys set in workspace/folder settings, which were ignored. */
  ignoredWorkspaceKeys: ConfigKey[];
}

const security = new Set<string>(SECURITY_KEYS);
/** Spending caps: a workspace may lower them, never raise or remove them (docs/design.md, “Usage and cost”). */
const CAP_KEYS = new Set<string>(['cortex.limits.maxRunTokens', 'cortex.limits.maxRunCost']);
const PRICING_KEY = 'cortex.llm.pricing';
/** The safety net of reverts: a workspace may turn it on or widen it, never switch it off or narrow it (docs/design.md, “Checkpoints and revert”). */
const CHECKPOINTS_ENABLED_KEY = 'cortex.checkpoints.enabled';
const CHECKPOINT_SIZE_KEY = 'cortex.checkpoints.maxFileBytes';

/**
 * Picks each key's effective value (folder > workspace > user). Security keys only ever take the
 * user value: a cloned repository's .vscode/settings.json must not be able to loosen the policy.
 * Defaults are left to `parseConfig`, so the schema stays the one source of truth for them.
 */
export function mapSettings(inspect: (key: ConfigKey) => SettingInspection | undefined): MappedSettings {
  const input: Record<string, unknown> = {};
  const ignoredWorkspaceKeys: ConfigKey[] = [];
  for (const key of CONFIG_KEYS) {
    const scopes = inspect(key);
    if (!scopes) continue;
    if (security.has(key)) {
      if (scopes.workspaceValue !== undefined || scopes.workspaceFolderValue !== undefined) ignoredWorkspaceKeys.push(key);
      input[key] = scopes.globalValue;
    } else if (CAP_KEYS.has(key)) {
      input[key] = strictestCap([scopes.globalValue, scopes.workspaceValue, scopes.workspaceFolderValue]);
    } else if (key === PRICING_KEY) {
      input[key] = userPricesWin(scopes);
    } else if (key === CHECKPOINTS_ENABLED_KEY) {
      input[key] = onUnlessUserSaidOff(scopes);
    } else if (key === CHECKPOINT_SIZE_KEY) {
      input[key] = largestValue([scopes.globalValue, scopes.workspaceValue, scopes.workspaceFolderValue]);
    } else {
      input[key] = scopes.workspaceFolderValue ?? scopes.workspaceValue ?? scopes.globalValue;
    }
  }
  return { input, ignoredWorkspaceKeys };
}

/** The lowest cap any scope set (`null` = no cap only when every scope that set it says so). */
function strictestCap(values: unknown[]): unknown {
  const set = values.filter((v) => v !== undefined);
  // A value of the wrong type goes on to parseConfig, which names it.
  const odd = set.find((v) => v !== null && typeof v !== 'number');
  if (odd !== undefined) return odd;
  const numbers = set.filter((v): v is number => typeof v === 'number');
  return numbers.length > 0 ? Math.min(...numbers) : set.length > 0 ? null : undefined;
}

/** Prices from a workspace may add models, never change the user's (a repository cannot make spending look free). */
function userPricesWin(scopes: SettingInspection): unknown {
  const layers = [scopes.workspaceFolderValue, scopes.workspaceValue, scopes.globalValue].filter((v) => v !== undefined);
  if (layers.length === 0) return undefined;
  const odd = layers.find((v) => !isRecord(v));
  if (odd !== undefined) return odd;
  return Object.assign({}, ...layers);
}

/** Only the user can switch recording off; any scope may switch it on. */
function onUnlessUserSaidOff(scopes: SettingInspection): unknown {
  const values = [scopes.globalValue, scopes.workspaceValue, scopes.workspaceFolderValue];
  const odd = values.find((v) => v !== undefined && typeof v !== 'boolean');
  if (odd !== undefined) return odd;
  if (values.includes(true)) return true;
  return scopes.globalValue;
}

/** The largest number any scope set (a wrong type goes on to parseConfig, which names it). */
function largestValue(values: unknown[]): unknown {
  const set = values.filter((v) => v !== undefined);
  const odd = set.find((v) => typeof v !== 'number');
  if (odd !== undefined) return odd;
  return set.length > 0 ? Math.max(...(set as number[])) : undefined;
}

/** True for endpoints on this machine, which need no API key (Ollama, LM Studio, llama.cpp, tests). */
export function isLocalEndpoint(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
