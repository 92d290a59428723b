import assert from 'node:assert/strict';
import { formatDuration, formatElapsed, formatOffset, formatTokens, humanize, oneLine, prettyJson, prettyValue, truncate } from '../../../webview/format';
import { createFrameScheduler } from '../../../webview/frameScheduler';
import { nextNode } from '../../../webview/keyboard';
import type { PositionedNode } from '../../../webview/layout';
import { clampZoom, ensureVisible, fitTransform, MAX_ZOOM, MIN_ZOOM, sanitizeTransform, transformCss, zoomAt } from '../../../webview/zoomPan';

describe('webview formatting', () => {
  it('pretty-prints JSON, double-encoded JSON, and leaves other text alone', () => {
    assert.equal(prettyJson('{"a":1,"b":[true]}'), '{\n  "a": 1,\n  "b": [\n    true\n  ]\n}');
    assert.equal(prettyJson(JSON.stringify('{"path":"x"}')), '{\n  "path": "x"\n}');
    assert.equal(prettyJson('"just a string"'), '"just a string"');
    assert.equal(prettyJson('{"half": '), '{"half": ');
    assert.equal(prettyValue({ kind: 'failover', n: 2 }), '{\n  "kind": "failover",\n  "n": 2\n}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.equal(prettyValue(cyclic), '[object Object]');
  });

  it('truncates without splitting a surrogate pair and says how much was cut', () => {
    assert.deepEqual(truncate('abc', 5), { text: 'abc', truncated: false, omitted: 0 });
    assert.deepEqual(truncate('abcdef', 4), { text: 'abcd…', truncated: true, omitted: 2 });
    const emoji = 'ab😀cd';
    const cut = truncate(emoji, 3);
    assert.equal(cut.text, 'ab…');
    assert.equal(cut.omitted, emoji.length - 2);
    assert.equal(oneLine('  many\n\nlines   here ', 9), 'many line…');
  });

  it('formats durations, elapsed time, tokens and offsets', () => {
    assert.equal(formatDuration(850), '850 ms');
    assert.equal(formatDuration(1234), '1.2 s');
    assert.equal(formatDuration(42_000), '42 s');
    assert.equal(formatDuration(125_000), '2 m 05 s');
    assert.equal(formatDuration(3_720_000), '1 h 02 m');
    assert.equal(formatDuration(-1), '–');
    assert.equal(formatElapsed(42_900), '0:42');
    assert.equal(formatElapsed(3_723_000), '1:02:03');
    assert.equal(formatTokens(950), '950');
    assert.equal(formatTokens(12_345), '12k');
    assert.equal(formatTokens(1_234), '1.2k');
    assert.equal(formatTokens(4_500_000), '4.5M');
    assert.equal(formatOffset(1500, 1000), '+500 ms');
    assert.equal(formatOffset(undefined, 1000), '–');
    assert.equal(formatOffset(Date.UTC(2024, 0, 1, 12, 30, 5, 250), undefined), '12:30:05.250');
    assert.equal(humanize('approval_denied'), 'approval denied');
  });
});

describe('webview keyboard navigation', () => {
  const box = (id: string, layer: number, x: number): PositionedNode => ({ id, layer, x, y: layer * 100, width: 100, height: 50 });
  const nodes = new Map([box('a', 0, 150), box('b', 1, 0), box('c', 1, 200), box('d', 1, 400), box('e', 3, 380)].map((n) => [n.id, n]));

  it('moves down and up to the horizontally nearest node of the next layer that has nodes', () => {
    assert.equal(nextNode(nodes, 'a', 'ArrowDown'), 'c');
    assert.equal(nextNode(nodes, 'd', 'ArrowDown'), 'e');
    assert.equal(nextNode(nodes, 'e', 'ArrowUp'), 'd');
    assert.equal(nextNode(nodes, 'b', 'ArrowUp'), 'a');
    assert.equal(nextNode(nodes, 'a', 'ArrowUp'), undefined);
  });

  it('moves left and right within a layer and jumps with Home/End', () => {
    assert.equal(nextNode(nodes, 'c', 'ArrowLeft'), 'b');
    assert.equal(nextNode(nodes, 'c', 'ArrowRight'), 'd');
    assert.equal(nextNode(nodes, 'd', 'ArrowRight'), undefined);
    assert.equal(nextNode(nodes, 'd', 'Home'), 'a');
    assert.equal(nextNode(nodes, 'a', 'End'), 'e');
    assert.equal(nextNode(nodes, undefined, 'ArrowDown'), 'a', 'nothing focused: start at the first node');
    assert.equal(nextNode(new Map(), undefined, 'Home'), undefined);
  });
});

describe('webview zoom and pan', () => {
  it('fits content into the viewport, centred, never above 100 %', () => {
    const t = fitTransform({ width: 1000, height: 500 }, { width: 548, height: 400 }, 24);
    assert.equal(t.k, 0.5);
    assert.equal(t.x, 24);
    assert.equal(t.y, (400 - 250) / 2);
    assert.equal(fitTransform({ width: 100, height: 100 }, { width: 1000, height: 1000 }).k, 1);
    assert.equal(fitTransform({ width: 1e6, height: 10 }, { width: 100, height: 100 }).k, MIN_ZOOM);
  });

  it('zooms around the pointer and clamps the scale', () => {
    const t = zoomAt({ k: 1, x: 10, y: 20 }, 2, 110, 220);
    assert.deepEqual(t, { k: 2, x: -90, y: -180 });
    // The layout point under the pointer stays under the pointer.
    assert.equal((110 - t.x) / t.k, (110 - 10) / 1);
    assert.equal(zoomAt({ k: 2, x: 0, y: 0 }, 100, 0, 0).k, MAX_ZOOM);
    assert.equal(clampZoom(Number.NaN), 1);
  });

  it('pans the least needed to reveal a node, and centres one that cannot fit', () => {
    const view = { width: 500, height: 400 };
    assert.deepEqual(ensureVisible({ k: 1, x: 0, y: 0 }, { x: 100, y: 100, width: 100, height: 50 }, view), { k: 1, x: 0, y: 0 });
    assert.deepEqual(ensureVisible({ k: 1, x: 0, y: 0 }, { x: 600, y: 100, width: 100, height: 50 }, view, 20), { k: 1, x: -220, y: 0 });
    assert.deepEqual(ensureVisible({ k: 1, x: 0, y: 0 }, { x: -50, y: 0, width: 100, height: 50 }, view, 20), { k: 1, x: 70, y: 20 });
    assert.equal(ensureVisible({ k: 1, x: 0, y: 0 }, { x: 0, y: 0, width: 900, height: 50 }, view).x, 250 - 450);
  });

  it('serialises the transform for CSS and validates a restored one', () => {
    assert.equal(transformCss({ k: 0.5, x: 10, y: -3.25 }), 'translate(10.0px, -3.3px) scale(0.5000)');
    assert.deepEqual(sanitizeTransform({ k: 9, x: 1, y: 2 }), { k: MAX_ZOOM, x: 1, y: 2 });
    assert.equal(sanitizeTransform({ k: 1, x: Infinity, y: 0 }), undefined);
    assert.equal(sanitizeTransform('nope'), undefined);
  });
});

describe('webview frame scheduler', () => {
  it('renders at most once per frame however many batches arrive', () => {
    const frames: Array<() => void> = [];
    let renders = 0;
    const scheduler = createFrameScheduler(
      () => renders++,
      (cb) => frames.push(() => cb(0)),
    );
    for (let i = 0; i < 50; i++) scheduler.request();
    assert.equal(frames.length, 1);
    assert.equal(scheduler.pending, true);
    frames.shift()!();
    assert.equal(renders, 1);
    scheduler.request();
    scheduler.flush();
    assert.equal(renders, 2, 'flush renders now');
    frames.shift()!();
    assert.equal(renders, 2, 'the frame requested before the flush does not render again');
  });
});
