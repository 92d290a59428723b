import assert from 'node:assert/strict';
import { RepeatDetector, toolCallSignature } from '../../../src/core/tools/repeatDetector';

describe('RepeatDetector', () => {
  it('stops on the third identical call in a row, with a clear reason', () => {
    const detector = new RepeatDetector();
    assert.equal(detector.observe('read_file', { path: 'a' }), null);
    assert.equal(detector.observe('read_file', '{"path":"a"}'), null);
    const verdict = detector.observe('read_file', { path: 'a' });
    assert.ok(verdict);
    assert.equal(verdict.count, 3);
    assert.match(verdict.reason, /read_file with identical arguments 3 times in a row/);
  });

  it('resets on a different call or different arguments', () => {
    const detector = new RepeatDetector(3);
    detector.observe('read_file', { path: 'a' });
    detector.observe('read_file', { path: 'a' });
    assert.equal(detector.observe('read_file', { path: 'b' }), null);
    assert.equal(detector.observe('read_file', { path: 'b' }), null);
    assert.equal(detector.observe('list_directory', {}), null);
  });

  it('treats key order as irrelevant', () => {
    assert.equal(toolCallSignature('t', { a: 1, b: { c: 2, d: 3 } }), toolCallSignature('t', '{"b":{"d":3,"c":2},"a":1}'));
    assert.notEqual(toolCallSignature('t', { a: 1 }), toolCallSignature('u', { a: 1 }));
  });

  it('accepts ready-made signatures and a custom threshold', () => {
    const detector = new RepeatDetector(2);
    assert.equal(detector.threshold, 2);
    assert.equal(detector.observe('x:{}'), null);
    assert.ok(detector.observe('x:{}'));
    detector.reset();
    assert.equal(detector.observe('x:{}'), null);
  });
});
