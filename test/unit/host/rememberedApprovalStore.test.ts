import assert from 'node:assert/strict';
import { ApprovalMemory } from '../../../src/core/policy/approvalMemory';
import { REMEMBERED_APPROVALS_KEY, workspacePrefixStore } from '../../../src/host/rememberedApprovalStore';
import type { StateLike } from '../../../src/host/mcpConsentStore';

// "Always allow in this workspace" keeps command prefixes in VS Code's workspace state (a Memento),
// under one key; what is there is read back through the core's validation.

function memento(): StateLike & { values: Map<string, unknown> } {
  const values = new Map<string, unknown>();
  return { values, get: <T>(key: string) => values.get(key) as T | undefined, update: async (key, value) => void values.set(key, value) };
}

describe('remembered approvals in the workspace state', () => {
  it('keeps an always-allowed prefix under its key, once, and a new memory applies it', async () => {
    const state = memento();
    const first = new ApprovalMemory({ store: workspacePrefixStore(state) });
    await first.rememberInWorkspace({ tool: 'run_command', prefix: ['npm', 'test'] });
    await first.rememberInWorkspace({ tool: 'run_command', prefix: ['npm', 'test'] });
    assert.deepEqual(state.values.get(REMEMBERED_APPROVALS_KEY), [{ tool: 'run_command', prefix: ['npm', 'test'] }]);
    const next = new ApprovalMemory({ store: workspacePrefixStore(state) });
    const found = next.find({
      toolName: 'run_command',
      argumentsJson: '{}',
      argsHash: 'a'.repeat(64),
      command: { text: 'npm test', handoffs: [], errors: [] },
    });
    assert.equal(found?.scope, 'workspace');
  });

  it('never keeps a folder or exact-arguments rule for the workspace', async () => {
    const state = memento();
    const memory = new ApprovalMemory({ store: workspacePrefixStore(state) });
    await assert.rejects(memory.rememberInWorkspace({ tool: 'write_file', folder: 'src' }), /only a command prefix/);
    assert.equal(state.values.size, 0);
  });

  it('keeps a malformed value it finds out of what it writes back', async () => {
    const state = memento();
    state.values.set(REMEMBERED_APPROVALS_KEY, [
      { tool: 'run_command', prefix: 'npm test' },
      { tool: 'run_command', prefix: ['make'] },
    ]);
    await new ApprovalMemory({ store: workspacePrefixStore(state) }).rememberInWorkspace({ tool: 'run_command', prefix: ['cargo', 'build'] });
    assert.deepEqual(state.values.get(REMEMBERED_APPROVALS_KEY), [
      { tool: 'run_command', prefix: ['make'] },
      { tool: 'run_command', prefix: ['cargo', 'build'] },
    ]);
  });
});
