import type { RememberedPrefixStore } from '../core/policy/approvalMemory';
import type { StateLike } from './mcpConsentStore';

// Where "Always allow in this workspace" keeps its command prefixes (docs/design.md, “Remembered
// approvals”): VS Code's workspace state, which lives in the user's profile, never in the
// repository, so no checked-in file or workspace setting can add one. The core reads the value
// back as untrusted data (a malformed entry is dropped with a log line). No `vscode` import.

export const REMEMBERED_APPROVALS_KEY = 'cortex.approvals.remembered';

export function workspacePrefixStore(state: StateLike): RememberedPrefixStore {
  return {
    read: () => state.get<unknown>(REMEMBERED_APPROVALS_KEY),
    write: async (value) => {
      await state.update(REMEMBERED_APPROVALS_KEY, value);
    },
  };
}
