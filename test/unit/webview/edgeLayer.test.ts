import assert from 'node:assert/strict';
import { arrowHead } from '../../../webview/edgeLayer';

describe('webview edge layer', () => {
  it('draws an open arrowhead pointing down with its tip on the arrival point', () => {
    assert.equal(arrowHead([100, 50]), 'M95.5,43L100,50L104.5,43');
    assert.equal(arrowHead([10.04, 20.06]), 'M5.5,13.1L10,20.1L14.5,13.1');
  });
});
