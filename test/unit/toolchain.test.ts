import assert from 'node:assert/strict';

describe('toolchain', () => {
  it('runs the tests on the Node major the extension host uses (>= 22)', () => {
    const major = Number(process.versions.node.split('.')[0]);
    assert.ok(major >= 22, `tests run on Node ${process.versions.node}`);
  });
});
