import assert from 'node:assert/strict';
import { readClaims } from '../../../src/core/verify/claimReader';

const claimsOf = (answer: string) => readClaims(answer).map((c) => (c.kind === 'file' ? `file ${c.paths.join(' ')}` : 'passed'));

describe('claim reader (docs/design.md, “The verifier and how a step ends”)', () => {
  it('reads a file claim for each change verb, with the path as written', () => {
    for (const verb of ['created', 'added', 'wrote', 'written', 'updated', 'modified', 'edited', 'fixed', 'deleted']) {
      assert.deepEqual(claimsOf(`I ${verb} test/date.test.js.`), ['file test/date.test.js'], verb);
    }
    assert.deepEqual(claimsOf('Created README.md with the usage.'), ['file README.md']);
    assert.deepEqual(claimsOf('- Updated `src/greet.ts` to export greet().'), ['file src/greet.ts']);
    assert.deepEqual(claimsOf('src/a.ts has been modified'), ['file src/a.ts']);
  });

  it('reads that tests or a build passed', () => {
    assert.deepEqual(claimsOf('Ran npm test: all 12 tests pass.'), ['passed']);
    assert.deepEqual(claimsOf('The build succeeded.'), ['passed']);
    assert.deepEqual(claimsOf('Tests ran successfully'), ['passed']);
    assert.deepEqual(claimsOf('The test suite passed'), ['passed']);
  });

  it('negated, conditional and future sentences are not claims', () => {
    assert.deepEqual(claimsOf('I did not change package.json.'), []);
    assert.deepEqual(claimsOf("I haven't modified src/a.ts, and nothing was deleted."), []);
    assert.deepEqual(claimsOf('No files were written.'), []);
    assert.deepEqual(claimsOf('You should update src/c.ts next.'), []);
    assert.deepEqual(claimsOf('I will add test/x.test.js once the API is known.'), []);
    assert.deepEqual(claimsOf('The tests do not pass.'), []);
    assert.deepEqual(claimsOf('Did the tests pass?'), []);
  });

  it('a truthful failing report is not a claim of passing', () => {
    assert.deepEqual(claimsOf('npm test exited 1: 3 passed, 2 failed.'), []);
    assert.deepEqual(claimsOf('The test suite fails with 2 errors in test/a.test.js.'), []);
  });

  it('paths in fenced code blocks claim nothing, and only the clause with the verb names the changed file', () => {
    assert.deepEqual(claimsOf('The config is:\n```\n// created src/x.ts\nwrite src/y.ts\n```\nThat is all.'), []);
    assert.deepEqual(claimsOf('I read src/a.ts and updated src/b.ts.'), ['file src/b.ts']);
    assert.deepEqual(claimsOf('Read package.json, then wrote notes.md.'), ['file notes.md']);
  });

  it('URLs, versions and abbreviations are not paths', () => {
    assert.deepEqual(claimsOf('Updated the docs at https://example.com/a/b.html'), []);
    assert.deepEqual(claimsOf('Updated to version 1.2.3'), []);
    assert.deepEqual(claimsOf('Fixed it, e.g. the crash in Node.js'), []);
  });
});
