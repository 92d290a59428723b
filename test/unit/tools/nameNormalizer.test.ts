import assert from 'node:assert/strict';
import { normalizeToolName } from '../../../src/core/tools/nameNormalizer';

describe('normalizeToolName', () => {
  it('folds case, camelCase and separators to one snake_case key (docs/design.md, “Tool name resolution”)', () => {
    for (const drift of ['Write-File', 'writeFile', 'WRITE_FILE', 'write_file', 'write.file', 'Write File', ' write__file ', 'WriteFile']) {
      assert.equal(normalizeToolName(drift), 'write_file', drift);
    }
  });

  it('splits acronyms before a capitalised word and keeps digits', () => {
    assert.equal(normalizeToolName('HTTPServerGet'), 'http_server_get');
    assert.equal(normalizeToolName('readFile2'), 'read_file2');
    assert.equal(normalizeToolName('v2Search'), 'v2_search');
  });

  it('strips a namespace prefix models add', () => {
    assert.equal(normalizeToolName('functions.read_file'), 'read_file');
    assert.equal(normalizeToolName('default_api:listDirectory'), 'list_directory');
    // Not a namespace: part of the name.
    assert.equal(normalizeToolName('tools_list'), 'tools_list');
  });

  it('yields an empty key for names without letters or digits', () => {
    assert.equal(normalizeToolName(''), '');
    assert.equal(normalizeToolName('⚙'), '');
    assert.equal(normalizeToolName(' -_. '), '');
  });
});
