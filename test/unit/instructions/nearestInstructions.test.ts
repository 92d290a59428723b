import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nearestFiles, stepFolders } from '../../../src/core/instructions/nearestInstructions';

describe("the nearest AGENTS.md above a step's paths", () => {
  it("takes the folders of the step's checks and the literal start of its write globs", () => {
    assert.deepEqual(
      stepFolders({
        expects: [{ changed: 'packages/api/src/a.ts' }, { exists: 'top.txt' }, { command: 'npm test', exit: 0 }, { contains: 'docs/x.md', text: 'y' }],
        scope: { write: ['web/**/*.tsx', 'lib/one.ts', '**/*.md'] },
      }),
      ['packages/api/src', 'docs', 'web', 'lib'],
    );
    assert.deepEqual(stepFolders({}), []);
  });

  it('walks up from each folder to the first AGENTS.md below the root, deepest first, at most three', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cortex-nearest-'));
    for (const folder of ['a/b/c', 'd', 'e/f', 'g', 'h']) mkdirSync(join(root, folder), { recursive: true });
    for (const file of ['AGENTS.md', 'a/AGENTS.md', 'd/AGENTS.md', 'e/f/AGENTS.md', 'g/AGENTS.md', 'h/AGENTS.md']) writeFileSync(join(root, file), 'x');
    assert.deepEqual(await nearestFiles(root, ['a/b/c'], 'AGENTS.md'), ['a/AGENTS.md']);
    assert.deepEqual(await nearestFiles(root, ['x/y'], 'AGENTS.md'), [], "the root's is the run's, not the step's");
    assert.deepEqual(await nearestFiles(root, ['d', 'e/f', 'a/b', 'a/b/c'], 'AGENTS.md'), ['a/AGENTS.md', 'e/f/AGENTS.md', 'd/AGENTS.md']);
    assert.equal((await nearestFiles(root, ['d', 'e/f', 'g', 'h'], 'AGENTS.md')).length, 3);
  });
});
