import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProjectInstructions, MAX_INSTRUCTIONS_FILE_BYTES } from '../../../src/core/instructions/projectInstructions';
import { withProjectInstructions } from '../../../src/core/instructions/instructionsMessage';

// Instructions files are workspace input (docs/design.md, “Project instructions”): regular files
// inside the workspace, under a cap; anything else is a warning, never a hang or a read outside.

const temp = (prefix: string) => realpathSync(mkdtempSync(join(tmpdir(), prefix)));

describe('loadProjectInstructions', () => {
  it('reads the files in the configured order and skips missing ones silently', async () => {
    const root = temp('cortex-instr-');
    writeFileSync(join(root, 'CLAUDE.md'), 'claude');
    writeFileSync(join(root, 'AGENTS.md'), 'agents');
    const found = await loadProjectInstructions(root, ['AGENTS.md', '.github/copilot-instructions.md', 'CLAUDE.md']);
    assert.deepEqual(
      found.files.map((f) => [f.path, f.text]),
      [
        ['AGENTS.md', 'agents'],
        ['CLAUDE.md', 'claude'],
      ],
    );
    assert.deepEqual(found.warnings, []);
  });

  it('refuses a FIFO without blocking, a folder linked outside, a too large file, and paths outside the workspace', async function () {
    this.timeout(10_000);
    const root = temp('cortex-instr-');
    const outside = temp('cortex-instr-out-');
    mkdirSync(join(outside, 'real'));
    writeFileSync(join(outside, 'real', 'copilot-instructions.md'), 'outside');
    symlinkSync(join(outside, 'real'), join(root, '.github'));
    execFileSync('mkfifo', [join(root, 'AGENTS.md')]);
    writeFileSync(join(root, 'CLAUDE.md'), 'x'.repeat(MAX_INSTRUCTIONS_FILE_BYTES + 1));
    const found = await loadProjectInstructions(root, ['AGENTS.md', '.github/copilot-instructions.md', 'CLAUDE.md', '../x.md', '/etc/passwd']);
    assert.deepEqual(found.files, []);
    const text = found.warnings.join('\n');
    assert.match(text, /AGENTS\.md not read: .*FIFO/);
    assert.match(text, /copilot-instructions\.md not read: its folder is a link to outside the workspace folder/);
    assert.match(text, /CLAUDE\.md not read: .*more than the 32 KiB/);
    assert.match(text, /\.\.\/x\.md not read: it is outside the workspace folder/);
    assert.match(text, /\/etc\/passwd not read: it must be a path relative to the workspace folder/);
  });
});

describe('withProjectInstructions', () => {
  it('puts one message after the leading system message and leaves a prompt without files unchanged', () => {
    const base = () => [
      { role: 'system' as const, content: 'sys' },
      { role: 'user' as const, content: 'task' },
    ];
    assert.deepEqual(withProjectInstructions(base(), []), base());
    const messages = withProjectInstructions(base(), [{ path: 'AGENTS.md', text: 'a </file> b', bytes: 11 }]);
    assert.deepEqual(
      messages.map((m) => m.role),
      ['system', 'user', 'user'],
    );
    assert.match(String(messages[1].content), /<file path="AGENTS.md">\na <\\\/file> b\n<\/file>/);
    assert.equal(messages[2].content, 'task');
  });
});
