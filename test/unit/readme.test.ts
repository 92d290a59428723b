import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The README is the user's manual: every setting and command the extension contributes is in it,
// and it names no document the reader does not have.
const root = join(__dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, unknown> }; commands: Array<{ title: string }> };
};

describe('README', () => {
  it('has a settings-table row for every contributed setting', () => {
    const missing = Object.keys(manifest.contributes.configuration.properties).filter((key) => !readme.includes(`| \`${key}\` |`));
    assert.deepEqual(missing, []);
  });

  it('names every contributed command', () => {
    const missing = manifest.contributes.commands.map((command) => command.title).filter((title) => !readme.includes(`**${title.replace(/…$/, '')}`));
    assert.deepEqual(missing, []);
  });

  it('cites no document the reader lacks', () => {
    assert.doesNotMatch(readme, /\bseed \d|\bthe brief\b|\bissue \d+\b|§\d+\.\d+ of/i);
  });
});
