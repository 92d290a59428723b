import assert from 'node:assert/strict';
import type { RunEvent } from '../../../src/core/plan/events';
import { EventBatcher } from '../../../src/panel/eventBatcher';
import { contentSecurityPolicy, createNonce, renderPanelHtml } from '../../../src/panel/panelHtml';
import { parseRecentRuns, upsertRecentRun, type RecentRun } from '../../../src/host/runIndex';
import { isRunId } from '../../../src/panel/runSource';

const logEvent = (seq: number): RunEvent => ({ type: 'log', seq, time: seq, level: 'info', message: `event ${seq}` });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('panel HTML', () => {
  const html = renderPanelHtml({
    cspSource: 'https://x.vscode-cdn.net',
    nonce: 'abc+/=',
    scriptUri: 'https://x.vscode-cdn.net/dist/webview.js',
    styleUris: ['https://x.vscode-cdn.net/media/panel.css'],
    title: 'Cortex: <b>"task"</b>',
  });

  it('has a strict CSP: nonce-only scripts, no inline, no eval, no network', () => {
    const csp = contentSecurityPolicy('https://x.vscode-cdn.net', 'abc+/=');
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-abc\+\/='(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*|https:(?!\/\/x)/);
  });

  it('loads one external script carrying the nonce and no inline script', () => {
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.equal(scripts.length, 1);
    assert.match(scripts[0][1], /nonce="abc\+\/="/);
    assert.match(scripts[0][1], /src="https:\/\/x\.vscode-cdn\.net\/dist\/webview\.js"/);
    assert.equal(scripts[0][2].trim(), '');
    assert.doesNotMatch(html, /\son\w+=/i, 'no inline event handlers');
  });

  it('escapes the title', () => {
    assert.match(html, /<title>Cortex: &#60;b&#62;&#34;task&#34;&#60;\/b&#62;<\/title>/);
  });

  it('makes a fresh 128-bit nonce each time', () => {
    const nonces = new Set(Array.from({ length: 50 }, createNonce));
    assert.equal(nonces.size, 50);
    for (const nonce of nonces) assert.equal(Buffer.from(nonce, 'base64').length, 16);
  });
});

describe('EventBatcher', () => {
  it('posts one contiguous batch per frame with fromSeq of its first event', async () => {
    const posts: Array<[number, number[]]> = [];
    const batcher = new EventBatcher((fromSeq, events) => posts.push([fromSeq, events.map((e) => e.seq)]), 10);
    for (let seq = 3; seq < 8; seq++) batcher.push(logEvent(seq));
    assert.equal(posts.length, 0, 'nothing before the frame ends');
    await sleep(30);
    batcher.push(logEvent(8));
    await sleep(30);
    assert.deepEqual(posts, [
      [3, [3, 4, 5, 6, 7]],
      [8, [8]],
    ]);
  });

  it('flush posts at once; clear and dispose drop what is queued', async () => {
    const posts: number[][] = [];
    const batcher = new EventBatcher((_from, events) => posts.push(events.map((e) => e.seq)), 10);
    batcher.push(logEvent(0));
    batcher.flush();
    batcher.push(logEvent(1));
    batcher.clear();
    batcher.push(logEvent(2));
    batcher.dispose();
    batcher.push(logEvent(3));
    await sleep(30);
    assert.deepEqual(posts, [[0]]);
  });
});

describe('recent runs index', () => {
  const run = (runId: string, startedAt: number, status: RecentRun['status'] = 'completed'): RecentRun => ({
    runId,
    task: `task ${runId}`,
    startedAt,
    status,
    traceFile: `/runs/${runId}.jsonl`,
  });

  it('keeps newest first, updates in place and caps the length', () => {
    let list: RecentRun[] = [];
    for (let i = 0; i < 5; i++) list = upsertRecentRun(list, run(`r${i}`, i, 'running'), 3);
    assert.deepEqual(
      list.map((r) => r.runId),
      ['r4', 'r3', 'r2'],
    );
    list = upsertRecentRun(list, run('r3', 3, 'failed'), 3);
    assert.deepEqual(
      list.map((r) => `${r.runId}:${r.status}`),
      ['r4:running', 'r3:failed', 'r2:running'],
    );
  });

  it('drops corrupt stored entries instead of losing the list', () => {
    const stored = [run('a', 2), { runId: 42 }, null, run('b', 1)];
    assert.deepEqual(
      parseRecentRuns(stored).map((r) => r.runId),
      ['a', 'b'],
    );
    assert.deepEqual(parseRecentRuns('garbage'), []);
  });
});

describe('isRunId', () => {
  it('accepts file-name-safe ids and refuses paths and junk', () => {
    for (const id of ['run-20261122T050312Z-a1b2c3', 'abc', 'A.b_c-1']) assert.equal(isRunId(id), true, id);
    for (const id of ['../etc/passwd', 'a/b', '', '.hidden', 'x'.repeat(200), 42, undefined, { runId: 'x' }])
      assert.equal(isRunId(id), false, JSON.stringify(id));
  });
});
