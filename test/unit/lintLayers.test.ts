import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// The core's inner layers (docs/design.md, "The core's inner layers") are only as good as the lint
// rules that keep them: each case cruises a small fixture tree shaped like src/core with the
// project's own .dependency-cruiser.cjs, the way `npm run lint` does, and looks for the rule by name.

const root = join(__dirname, '..', '..');
const cruiser = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');
const config = join(root, '.dependency-cruiser.cjs');

/** Cruises `files` (path → source) laid out in a fresh folder; the exit status and the report. */
function cruise(files: Record<string, string>): { status: number | null; report: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cortex-layers-'));
  try {
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', target: 'es2022', strict: true } }));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, dirname(path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const result = spawnSync(process.execPath, [cruiser, '--config', config, '--output-type', 'err', 'src'], { cwd: dir, encoding: 'utf8' });
    return { status: result.status, report: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const leaf = { 'src/core/text/clip.ts': 'export const clip = 1;\n' };

describe('lint: the layers of src/core', function () {
  this.timeout(60_000);

  it('passes imports that go down the layers (agent → plan → llm → text)', () => {
    const { status, report } = cruise({
      ...leaf,
      'src/core/llm/client.ts': "import { clip } from '../text/clip';\nexport const client = clip;\n",
      'src/core/plan/events.ts': "import { client } from '../llm/client';\nexport const events = client;\n",
      'src/core/agent/run.ts': "import { events } from '../plan/events';\nexport const run = events;\n",
    });
    assert.equal(status, 0, report);
  });

  it('fails on an upward import (plan importing a feature)', () => {
    const { status, report } = cruise({
      'src/core/checkpoints/changeSchema.ts': 'export const change = 1;\n',
      'src/core/plan/events.ts': "import { change } from '../checkpoints/changeSchema';\nexport const events = change;\n",
    });
    assert.notEqual(status, 0, report);
    assert.match(report, /core-plan-imports-only-llm-and-leaves: src\/core\/plan\/events\.ts → src\/core\/checkpoints\/changeSchema\.ts/);
  });

  it('fails when the file kernel imports the tools above it', () => {
    const { status, report } = cruise({
      'src/core/tools/toolTypes.ts': 'export class ToolError extends Error {}\n',
      'src/core/files/workspaceJail.ts': "import { ToolError } from '../tools/toolTypes';\nexport const jail = ToolError;\n",
    });
    assert.notEqual(status, 0, report);
    assert.match(report, /core-leaves-import-only-leaves: src\/core\/files\/workspaceJail\.ts → src\/core\/tools\/toolTypes\.ts/);
  });

  it('fails on a folder cycle between two features, even without a cycle between files', () => {
    const { status, report } = cruise({
      'src/core/context/tokenCounter.ts': 'export const count = 1;\n',
      'src/core/context/budget.ts': "import { price } from '../usage/pricing';\nexport const budget = price;\n",
      'src/core/usage/pricing.ts': "import { count } from '../context/tokenCounter';\nexport const price = count;\n",
    });
    assert.notEqual(status, 0, report);
    assert.match(report, /core-no-folder-cycle/);
    assert.doesNotMatch(report, /no-circular/, 'the files themselves form no cycle');
  });

  it('fails on a core folder that has no place in the layers yet', () => {
    const { status, report } = cruise({
      ...leaf,
      'src/core/newFeature/thing.ts': "import { clip } from '../text/clip';\nexport const thing = clip;\n",
    });
    assert.notEqual(status, 0, report);
    assert.match(report, /core-folder-has-a-layer: src\/core\/newFeature\/thing\.ts/);
  });
});
