// Panel benchmark and its targets, measured in headless Chromium under the production CSP:
//   - first layout + render of a 200-step plan            ≤ 100 ms (printed with the layout alone)
//   - a status update (restyle, no re-layout) at 200 steps < 16 ms
//   - 1,000 events per second for 5 s without a growing backlog
//   - layout timings at 50 / 200 / 1,000 steps: the panel's cheap layered layout vs d3-dag's quality
//     operators and vs d3-dag's built-in cheap operators
// plus functional checks of the real bundle (CSP, handshake, resync, approvals, keyboard, text-only
// rendering) and a screenshot of a realistic plan in test-artifacts/panel-harness.png.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { aggMedian, coordGreedy, decrossDfs, decrossTwoLayer, graph, layeringLongestPath, sugiyama, twolayerAgg } from 'd3-dag';
import { build } from 'esbuild';
import { chromium, type Page } from 'playwright-core';
import { setupError } from './support/runBenchmark';
import type { RunEvent } from '../src/core/plan/events';
import { applyEvent, foldEvents } from '../src/core/plan/reducer';
import { toSnapshot } from '../src/core/plan/snapshot';
import type { HostToWebview } from '../src/protocol/messages';
import { collectEdges, layoutPlan, NODE_GAP, NODE_HEIGHT, NODE_WIDTH, type LayoutNodeInput, type LayoutOperators } from '../webview/layout';
import { DEMO_RUN_ID, demoPlan } from '../test/support/plans/demoPlan';
import { EventStamper, liveEventSource, syntheticPlanEvents, syntheticSteps } from '../test/support/plans/syntheticPlan';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const HARNESS = join(ROOT, 'bench', 'panelHarness');
const ARTIFACTS = join(ROOT, 'test-artifacts');

if (!existsSync(CHROMIUM))
  setupError(`panel bench: setup error, not a missed target: ${CHROMIUM} is missing. Install it once with:\n  apt-get update && apt-get install -y chromium`);

let failures = 0;
function line(label: string, value: string, target?: string, ok?: boolean): void {
  const verdict = ok === undefined ? '' : ok ? '  ✓ met' : '  ✗ MISSED';
  if (ok === false) failures++;
  console.log(`  ${label.padEnd(52)} ${value.padStart(12)}${target ? `   target ${target}` : ''}${verdict}`);
}
function check(label: string, ok: boolean, detail = ''): void {
  if (!ok) failures++;
  console.log(`  ${ok ? '✓' : '✗ FAILED'} ${label}${detail ? ` — ${detail}` : ''}`);
}
const ms = (v: number): string => `${v.toFixed(1)} ms`;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};

interface Harness {
  posted: Array<Record<string, unknown>>;
  csp: Array<{ directive: string; blocked: string; sample: string }>;
  warnings: string[];
  stateWrites: number;
}
declare global {
  interface Window {
    __cortexHarness: Harness;
    cortexPanelPerf: Array<{
      kind: 'render' | 'message';
      ms: number;
      layoutMs?: number;
      domMs?: number;
      fitMs?: number;
      nodes?: number;
      events?: number;
      structure?: boolean;
      lastSeq: number;
      operators?: string;
    }>;
  }
}

async function main(): Promise<void> {
  // ---------- layout timings (Node, the same layoutPlan the webview runs) ----------

  function layoutInput(n: number): LayoutNodeInput[] {
    return syntheticSteps(n).map((s) => ({ id: s.id, dependsOn: s.dependsOn, replaced: false }));
  }
  function timeLayout(n: number, operators: LayoutOperators, reps: number): { ms: number; width: number } {
    const input = layoutInput(n);
    layoutPlan(input, { operators }); // warm-up
    const times: number[] = [];
    let width = 0;
    for (let i = 0; i < reps; i++) {
      const t = performance.now();
      width = layoutPlan(input, { operators }).width;
      times.push(performance.now() - t);
    }
    return { ms: median(times), width };
  }

  /** d3-dag with its own cheap operators (one-pass two-layer median decrossing, greedy coordinates), which the panel used before. */
  function timeBuiltInCheap(n: number, reps: number): { ms: number; width: number } {
    const input = layoutInput(n);
    const { edges } = collectEdges(input);
    const run = (): number => {
      const g = graph<string, undefined>();
      const handles = new Map(input.map((node) => [node.id, g.node(node.id)]));
      for (const edge of edges) g.link(handles.get(edge.source)!, handles.get(edge.target)!, undefined);
      const layout = sugiyama()
        .nodeSize([NODE_WIDTH, NODE_HEIGHT] as const)
        .gap(NODE_GAP)
        .layering(layeringLongestPath())
        .decross(decrossTwoLayer().order(twolayerAgg().aggregator(aggMedian)).passes(1).inits([decrossDfs()]))
        .coord(coordGreedy());
      return layout(g).width;
    };
    run(); // warm-up
    const times: number[] = [];
    let width = 0;
    for (let i = 0; i < reps; i++) {
      const t = performance.now();
      width = run();
      times.push(performance.now() - t);
    }
    return { ms: median(times), width };
  }

  console.log(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} (1 / 5 / 15 min); timings scale with other load`,
  );
  console.log('\nlayout (Node, warm): cheap = the layered layout of webview/layeredLayout.ts (longest-path layering,');
  console.log('median sweeps, median coordinates); quality = d3-dag simplex layering + two-layer decrossing + simplex');
  console.log("coords; built-in cheap = d3-dag's longest path + one-pass two-layer decrossing + greedy coords.");
  const cheapAt: Record<number, number> = {};
  const qualityAt: Record<number, number> = {};
  for (const n of [50, 200, 1000]) {
    const fast = timeLayout(n, 'fast', n >= 1000 ? 3 : 5);
    cheapAt[n] = fast.ms;
    const auto = layoutPlan(layoutInput(n)).operators;
    line(`${n} steps, cheap layout (width ${Math.round(fast.width)} px)`, ms(fast.ms));
    if (n <= 200) {
      const quality = timeLayout(n, 'quality', n >= 200 ? 2 : 5);
      qualityAt[n] = quality.ms;
      line(`${n} steps, quality operators (baseline, width ${Math.round(quality.width)} px)`, ms(quality.ms));
    } else {
      console.log(`  ${n} steps, quality operators: not run (simplex takes seconds from ~400 steps)`);
    }
    if (n >= 200) {
      const builtIn = timeBuiltInCheap(n, n >= 1000 ? 3 : 5);
      line(`${n} steps, built-in cheap (baseline, width ${Math.round(builtIn.width)} px)`, ms(builtIn.ms));
    }
    console.log(`  → the panel uses the ${auto} operators at ${n} steps`);
  }
  line(
    'quality / cheap at 200 steps (why big plans use the cheap ones)',
    `${(qualityAt[200] / cheapAt[200]).toFixed(1)}×`,
    '> 3×',
    qualityAt[200] > 3 * cheapAt[200],
  );

  // ---------- bundle + harness server ----------

  const outDir = mkdtempSync(join(tmpdir(), 'cortex-panel-bench-'));
  const bundlePath = join(outDir, 'webview.js');
  await build({
    entryPoints: [join(ROOT, 'webview', 'main.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['chrome120'],
    minify: true,
    outfile: bundlePath,
    logLevel: 'warning',
    legalComments: 'none',
  });
  console.log(`\nbundle: dist/webview.js equivalent is ${(readFileSync(bundlePath).length / 1024).toFixed(0)} KiB (minified IIFE)`);

  const nonce = randomBytes(16).toString('base64');
  const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png', '.ttf': 'font/ttf' };
  // What scripts/build.mjs copies to dist/codicons/, served from the package itself.
  const CODICONS = join(ROOT, 'node_modules', '@vscode', 'codicons', 'dist');
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let file: string | undefined;
    if (url.pathname === '/' || url.pathname === '/index.html') {
      const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const html = readFileSync(join(HARNESS, 'index.html'), 'utf8').replaceAll('{{CSP_SOURCE}}', origin).replaceAll('{{NONCE}}', nonce);
      res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' }).end(html);
      return;
    }
    if (url.pathname === '/dist/webview.js') file = bundlePath;
    else if (url.pathname.startsWith('/dist/codicons/')) file = join(CODICONS, url.pathname.slice('/dist/codicons/'.length));
    else if (url.pathname.startsWith('/media/')) file = join(ROOT, 'media', url.pathname.slice(7));
    else if (url.pathname.startsWith('/harness/')) file = join(HARNESS, url.pathname.slice(9));
    if (!file || file.includes('..') || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' }).end(readFileSync(file));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const BASE = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;

  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1, reducedMotion: 'reduce' });
  // tsx (esbuild keepNames) wraps named functions inside page.evaluate callbacks in __name(); give the page a no-op.
  await context.addInitScript('globalThis.__name = (fn) => fn;');
  // This bench measures the graph: a fresh panel starts in the graph view (a plan over 8 steps
  // would otherwise open as the list, and the graph would be laid out only when shown).
  await context.addInitScript(() => {
    if (!sessionStorage.getItem('cortex-harness-state')) sessionStorage.setItem('cortex-harness-state', JSON.stringify({ planView: 'graph' }));
  });

  async function openPanel(page: Page): Promise<void> {
    await page.goto(BASE);
    await page.waitForFunction(() => window.__cortexHarness?.posted.some((m) => m.type === 'webview/ready'));
  }

  const posted = (page: Page): Promise<Array<Record<string, unknown>>> => page.evaluate(() => window.__cortexHarness.posted);
  const send = (page: Page, message: HostToWebview | Record<string, unknown>): Promise<void> => page.evaluate((m) => window.postMessage(m, '*'), message);
  const frames = (page: Page, n = 2): Promise<void> =>
    page.evaluate(async (count) => {
      for (let i = 0; i < count; i++) await new Promise((r) => requestAnimationFrame(() => r(null)));
    }, n);

  /**
   * Dispatches one host message synchronously and measures the main-thread work it causes: the
   * message handler (zod validation + fold), the panel's frame callback (layout, DOM), and the
   * browser's style + layout of the result (forced right after the panel's frame callback).
   */
  function measureMessage(
    page: Page,
    message: HostToWebview,
  ): Promise<{
    handler: number;
    render: number;
    layout: number;
    dom: number;
    fit: number;
    styleLayout: number;
    work: number;
    structure: boolean;
    renders: number;
    operators?: string;
  }> {
    return page.evaluate(
      async (m) => {
        const perf = window.cortexPanelPerf;
        const from = perf.length;
        const t0 = performance.now();
        window.dispatchEvent(new MessageEvent('message', { data: m }));
        const handler = performance.now() - t0;
        let styleLayout = 0;
        await new Promise<void>((done) =>
          requestAnimationFrame(() => {
            // Registered after the panel's frame callback, so it runs right after it in the same frame.
            const s = performance.now();
            document.body.getBoundingClientRect();
            void document.querySelector<HTMLElement>('.world')?.offsetWidth;
            styleLayout = performance.now() - s;
            done();
          }),
        );
        const renders = perf.slice(from).filter((e) => e.kind === 'render');
        const render = renders.reduce((a, e) => a + e.ms, 0);
        const layout = renders.reduce((a, e) => a + (e.layoutMs ?? 0), 0);
        const dom = renders.reduce((a, e) => a + (e.domMs ?? 0), 0);
        const fit = renders.reduce((a, e) => a + (e.fitMs ?? 0), 0);
        return {
          handler,
          render,
          layout,
          dom,
          fit,
          styleLayout,
          work: handler + render + styleLayout,
          structure: renders.some((e) => e.structure),
          renders: renders.length,
          operators: renders.find((e) => e.operators)?.operators,
        };
      },
      message as unknown as Record<string, unknown>,
    );
  }

  function bigPlan(runId: string): { events: RunEvent[]; stamper: EventStamper } {
    const stamper = new EventStamper(0, Date.now() - 95_000);
    const events = syntheticPlanEvents(200, stamper, runId);
    // A run in progress: the first 60 steps ran with two tool calls each.
    for (let i = 1; i <= 60; i++) {
      const stepId = `s${i}`;
      events.push(stamper.stamp({ type: 'step_status_changed', stepId, status: 'in_progress' }));
      for (let c = 0; c < 2; c++) {
        const id = `c${i}_${c}`;
        events.push(
          stamper.stamp({
            type: 'tool_call_requested',
            stepId,
            call: {
              id,
              index: c,
              turn: 1,
              name: 'read_file',
              requestedName: 'read_file',
              nameResolution: 'exact',
              arguments: '{"path":"a.ts"}',
              rawArguments: '{"path":"a.ts"}',
              isComplete: true,
              finishReason: 'tool_calls',
            },
          }),
        );
        events.push(stamper.stamp({ type: 'tool_call_completed', stepId, callId: id, status: 'success', result: 'ok', durationMs: 3 }));
      }
      events.push(stamper.stamp({ type: 'step_status_changed', stepId, status: i % 17 === 0 ? 'failed' : 'completed' }));
    }
    return { events, stamper };
  }

  try {
    // ---------- first layout + render at 200 steps ----------
    console.log('\nfirst layout + render of a 200-step plan (fresh panel each time; handler + frame + style/layout):');
    const firsts: number[] = [];
    const layoutsAlone: number[] = [];
    let page = await context.newPage();
    let lastPlan: { events: RunEvent[]; stamper: EventStamper } | undefined;
    let lastRun = '';
    for (let i = 0; i < 7; i++) {
      await openPanel(page);
      // The host answers webview/ready over IPC; give the panel the ~50 ms a real round trip takes.
      await page.waitForTimeout(50);
      lastRun = `run-bench-${i}`;
      lastPlan = bigPlan(lastRun);
      const r = await measureMessage(page, { type: 'host/reset', runId: lastRun, live: true, events: lastPlan.events });
      firsts.push(r.work);
      layoutsAlone.push(r.layout);
      console.log(
        `    load ${i + 1}: ${ms(r.work)} (handler ${ms(r.handler)} for ${lastPlan.events.length} events, frame ${ms(r.render)} incl. layout ${ms(r.layout)} [${r.operators}], DOM ${ms(r.dom)}, fit ${ms(r.fit)}, style/layout ${ms(r.styleLayout)})`,
      );
    }
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'panel-harness-200.png') });
    const nodeCount = await page.evaluate(() => document.querySelectorAll('.node').length);
    check('200 nodes on screen', nodeCount === 200, `${nodeCount} .node elements`);
    line('layout alone (in the panel), 200 steps (median of 7)', ms(median(layoutsAlone)));
    line('first layout + render, 200 steps (median of 7)', ms(median(firsts)), '≤ 100 ms', median(firsts) <= 100);
    line('first layout + render, 200 steps (worst of 7)', ms(Math.max(...firsts)));

    // ---------- status update restyle at 200 steps ----------
    const stamper = lastPlan!.stamper;
    const updates: number[] = [];
    let relayouts = 0;
    const statuses = ['in_progress', 'completed', 'failed', 'blocked', 'not_started'] as const;
    for (let i = 0; i < 60; i++) {
      const event = stamper.stamp({ type: 'step_status_changed', stepId: `s${61 + (i % 140)}`, status: statuses[i % statuses.length] });
      const r = await measureMessage(page, { type: 'host/events', runId: lastRun, fromSeq: event.seq, events: [event] });
      updates.push(r.work);
      if (r.structure || r.layout > 0) relayouts++;
    }
    console.log('\nstatus update at 200 steps (one step_status_changed; handler + frame + style/layout; 60 samples):');
    line('status update, median', ms(median(updates)));
    line('status update, p95', ms(pct(updates, 95)), '< 16 ms', pct(updates, 95) < 16);
    line('status update, worst', ms(Math.max(...updates)));
    check('status updates restyle without re-layout', relayouts === 0, `${relayouts} of 60 re-laid out`);
    // The same at 100 % zoom, where every node shows its full text and chips.
    const detailZoomedOut = await page.evaluate(() => document.querySelectorAll('.node-desc').length);
    for (let i = 0; i < 12; i++) await page.click('.toolbar button[aria-label="Zoom in"]');
    const detailZoomedIn = await page.evaluate(() => ({
      descs: document.querySelectorAll('.node-desc').length,
      s1: document.querySelector('.node[data-step-id="s1"] .node-desc')?.textContent ?? '',
      s1chips: document.querySelectorAll('.node[data-step-id="s1"] .chip').length,
    }));
    const s1Description = lastPlan!.events.find((e) => e.type === 'step_added' && e.stepId === 's1');
    check(
      'zoomed out, nodes have no detail parts; zooming in builds them with the current text and chips',
      detailZoomedOut === 0 &&
        detailZoomedIn.descs === 200 &&
        detailZoomedIn.s1 === (s1Description as { description?: string } | undefined)?.description &&
        detailZoomedIn.s1chips === 2,
      `${detailZoomedOut} descriptions zoomed out; zoomed in ${JSON.stringify(detailZoomedIn)}`,
    );
    const zoomed: number[] = [];
    for (let i = 0; i < 30; i++) {
      const event = stamper.stamp({ type: 'step_status_changed', stepId: `s${61 + ((i * 7) % 140)}`, status: statuses[i % statuses.length] });
      zoomed.push((await measureMessage(page, { type: 'host/events', runId: lastRun, fromSeq: event.seq, events: [event] })).work);
    }
    line('status update at 100 % zoom (full node text), p95', ms(pct(zoomed, 95)), '< 16 ms', pct(zoomed, 95) < 16);
    await page.click('.toolbar button[aria-label="Fit the graph to the view"]');

    // ---------- 1,000 events per second for 5 s ----------
    const RATE = 1000;
    const SECONDS = 5;
    const source = liveEventSource(200, stamper);
    const stream: RunEvent[] = [];
    let added = 200;
    for (let i = 0; i < RATE * SECONDS; i++) {
      // One structural change per second (a replan adding a step) so layouts happen under load too.
      if (i % RATE === RATE - 1) {
        added++;
        stream.push(
          stamper.stamp(
            {
              type: 'step_added',
              stepId: `s${added}`,
              description: `Step added under load ${added}`,
              dependsOn: [`s${added - 5}`],
              lineage: `s${added}`,
              replanAttempts: 1,
              origin: 'replan',
            },
            1,
          ),
        );
      } else stream.push(source.next());
    }
    const flow = await page.evaluate(
      async ({ events, runId, rate, everyMs }) => {
        const perf = window.cortexPanelPerf;
        const from = perf.length;
        const renderedSeq = (): number => {
          for (let i = perf.length - 1; i >= from; i--) if (perf[i].kind === 'render') return perf[i].lastSeq;
          return events[0].seq - 1;
        };
        const samples: Array<{ t: number; lag: number }> = [];
        const start = performance.now();
        let sent = 0;
        await new Promise<void>((done) => {
          const tick = (): void => {
            const now = performance.now() - start;
            const due = Math.min(events.length, Math.floor((now * rate) / 1000));
            if (due > sent) {
              const batch = events.slice(sent, due);
              window.postMessage({ type: 'host/events', runId, fromSeq: batch[0].seq, events: batch }, '*');
              sent = due;
            }
            samples.push({ t: now, lag: (sent ? events[sent - 1].seq : events[0].seq - 1) - renderedSeq() });
            if (sent < events.length) setTimeout(tick, everyMs);
            else done();
          };
          tick();
        });
        const sendEnd = performance.now() - start;
        const lastSeq = events[events.length - 1].seq;
        while (renderedSeq() < lastSeq && performance.now() - start < sendEnd + 2000) await new Promise((r) => setTimeout(r, 5));
        const caughtUpAfter = performance.now() - start - sendEnd;
        const entries = perf.slice(from);
        const renders = entries.filter((e) => e.kind === 'render');
        const busy = entries.reduce((a, e) => a + e.ms, 0);
        const handling = entries.filter((e) => e.kind === 'message').reduce((a, e) => a + e.ms, 0);
        return {
          samples,
          sendEnd,
          caughtUpAfter,
          caughtUp: renderedSeq() >= lastSeq,
          renders: renders.map((e) => ({ ms: e.ms, structure: !!e.structure, events: e.events ?? 0 })),
          busy,
          handling,
        };
      },
      { events: stream, runId: lastRun, rate: RATE, everyMs: 10 },
    );
    const lags = flow.samples.map((s) => s.lag);
    const firstSecond = flow.samples.filter((s) => s.t < 1000).map((s) => s.lag);
    const lastSecond = flow.samples.filter((s) => s.t >= (SECONDS - 1) * 1000).map((s) => s.lag);
    const renderMs = flow.renders.map((r) => r.ms);
    console.log(
      `\n${RATE.toLocaleString('en-US')} events/s for ${SECONDS} s (${stream.length} events in ${Math.round(flow.sendEnd / 10)} batches of ~10, ${flow.renders.filter((r) => r.structure).length} layouts under load):`,
    );
    line('renders (at most one per frame)', `${flow.renders.length}`);
    line('frame render time p95', ms(pct(renderMs, 95)));
    line('main-thread share used by the panel', `${((flow.busy / flow.sendEnd) * 100).toFixed(1)} %`);
    line('  of which validating + folding messages', `${((flow.handling / flow.sendEnd) * 100).toFixed(1)} %`);
    line(
      'capacity: events per second of panel main-thread time',
      `${Math.round(stream.length / (flow.busy / 1000)).toLocaleString('en-US')}`,
      '> 1,000',
      stream.length / (flow.busy / 1000) > RATE,
    );
    line('backlog, median over the run (events sent, not rendered)', `${median(lags)}`, '< 100 events', median(lags) < 100);
    line('backlog, worst sample (scheduling hiccups included)', `${Math.max(...lags)}`);
    line(
      'backlog, median in the last second vs the first',
      `${median(lastSecond)} vs ${median(firstSecond)}`,
      'no growth',
      median(lastSecond) <= median(firstSecond) * 1.5 + 20,
    );
    line('caught up after the last batch', flow.caughtUp ? ms(flow.caughtUpAfter) : 'never', '< 250 ms', flow.caughtUp && flow.caughtUpAfter < 250);
    await page.close();

    // ---------- realistic small plan: screenshot + functional checks ----------
    console.log('\nfunctional checks (real bundle, production CSP):');
    page = await context.newPage();
    page.setDefaultTimeout(5000);
    const warnings: string[] = [];
    page.on('pageerror', (err) => warnings.push(`pageerror: ${err.message}`));
    await openPanel(page);
    const ready = (await posted(page))[0];
    check('posts webview/ready on load', ready?.type === 'webview/ready' && ready.runId === undefined, JSON.stringify(ready));
    const csp = await page.evaluate(() => {
      const before = window.__cortexHarness.csp.length;
      const probe = document.createElement('div');
      document.body.append(probe);
      probe.setAttribute('style', 'color: rgb(1, 2, 3)');
      const attrBlocked = getComputedStyle(probe).color !== 'rgb(1, 2, 3)';
      probe.removeAttribute('style');
      probe.style.setProperty('color', 'rgb(4, 5, 6)');
      const cssomWorks = getComputedStyle(probe).color === 'rgb(4, 5, 6)';
      probe.remove();
      return { before, attrBlocked, cssomWorks };
    });
    check('CSP is active: a style attribute is blocked', csp.attrBlocked);
    check('CSP allows CSSOM (element.style.setProperty), which the panel uses for positions', csp.cssomWorks);
    check('the panel itself caused no CSP violation', csp.before === 0, `${csp.before} violations`);
    const custom = await page.evaluate(() => ['vscode-badge', 'vscode-collapsible', 'vscode-textarea'].filter((t) => !customElements.get(t)));
    check('@vscode-elements components are registered from the bundle', custom.length === 0, custom.join(', '));

    const demo = demoPlan();
    await send(page, { type: 'host/reset', runId: DEMO_RUN_ID, live: true, events: demo.events });
    await frames(page);
    await page.click('.node[data-step-id="s7"] .node-desc');
    await frames(page, 3);
    mkdirSync(ARTIFACTS, { recursive: true });
    const shot = join(ARTIFACTS, 'panel-harness.png');
    await page.screenshot({ path: shot });
    console.log(`  screenshot: ${shot}`);

    const ui = await page.evaluate(() => {
      const text = (sel: string): string => document.querySelector(sel)?.textContent ?? '';
      const node = (id: string): HTMLElement | null => document.querySelector(`.node[data-step-id="${id}"]`);
      return {
        replacedLabel: text('.node[data-step-id="s2"] .node-meta'),
        replacedClass: node('s2')?.classList.contains('replaced') ?? false,
        newTag: text('.node[data-step-id="s5"] .tag-new'),
        blockedLabel: text('.node[data-step-id="s9"] .node-meta'),
        replacementEdges: document.querySelectorAll('path.edge-replacement').length,
        approveAll: text('.approvals-bar .btn-primary'),
        approveAllVisible: !(document.querySelector('.approvals-bar') as HTMLElement).hidden,
        nodeButtons: [...document.querySelectorAll('.node[data-step-id="s7"] .node-actions button')].map((b) => `${b.tagName}:${b.getAttribute('aria-label')}`),
        detailsTitle: text('.details-body .details-title'),
        detailsApprove: [...document.querySelectorAll('.details button')].filter((b) => b.textContent === 'Approve').length,
        argsShown: text('.approval-card pre'),
        retry: [...document.querySelectorAll('.node[data-step-id="s8"] .node-actions button')].map((b) => b.textContent),
        spinnerNode: getComputedStyle(document.querySelector('.node[data-step-id="s7"] .node-glyph')!).animationName,
        chips: [...document.querySelectorAll('.node[data-step-id="s1"] .chip')].map((c) => `${c.querySelector('.chip-glyph')?.className}:${c.textContent}`),
      };
    });
    check(
      'replaced steps stay, dimmed, labelled "replaced by replan 1 of 2"',
      ui.replacedClass && ui.replacedLabel.startsWith('replaced by replan 1 of 2'),
      ui.replacedLabel,
    );
    check('replacement edges drawn from replaced steps to their replacements', ui.replacementEdges === 2, `${ui.replacementEdges} edges`);
    check('new steps are marked new', ui.newTag.toLowerCase() === 'new');
    check('a blocked step says what blocked it', ui.blockedLabel === 'blocked by s8 (approval denied)', ui.blockedLabel);
    check('"Approve all (2)" in the header with two approvals pending', ui.approveAllVisible && ui.approveAll === 'Approve all (2)', ui.approveAll);
    check(
      'Approve/Deny on the node are real <button>s with accessible names',
      ui.nodeButtons.length === 2 && ui.nodeButtons.every((b) => b.startsWith('BUTTON:') && b.includes('run_command')),
      ui.nodeButtons.join(' | '),
    );
    check(
      'clicking a node opens its details with the approval and exact arguments',
      ui.detailsTitle === 'Step s7' && ui.detailsApprove === 1 && ui.argsShown.includes('"command": "npm test -- --grep \\"cli flags\\""'),
      `${ui.detailsTitle}, ${ui.detailsApprove} approve button(s)`,
    );
    check('a step blocked by a denied required gate offers Retry', ui.retry.includes('Retry'), ui.retry.join(','));
    check('in-progress spinner respects prefers-reduced-motion', ui.spinnerNode === 'none', ui.spinnerNode);
    check(
      'tool-call chips show codicon status icons',
      ui.chips.length === 2 && ui.chips.every((c) => c.startsWith('codicon codicon-check chip-glyph:')),
      ui.chips.join(' '),
    );
    await page.evaluate(() => document.fonts.ready);
    const icons = await page.evaluate(() => {
      const all = [...document.querySelectorAll('.codicon')];
      return {
        count: all.length,
        fontLoaded: [...document.fonts].some((f) => f.family.replace(/"/g, '') === 'codicon' && f.status === 'loaded'),
        // The glyph comes from the font (::before content), never from text in the element.
        withText: all.filter((e) => e.textContent !== '').length,
        withoutGlyph: all.filter((e) => getComputedStyle(e, '::before').content === 'none').map((e) => e.className),
        // Decorative icons are hidden from screen readers; meaningful ones are images with a name.
        unlabelled: all
          .filter((e) => e.getAttribute('aria-hidden') !== 'true' && !(e.getAttribute('role') === 'img' && e.getAttribute('aria-label')))
          .map((e) => e.className),
      };
    });
    check(
      'the codicon font loads under the CSP and every icon has its glyph',
      icons.fontLoaded && icons.count > 20 && icons.withText === 0 && icons.withoutGlyph.length === 0,
      JSON.stringify(icons),
    );
    check('every icon is hidden from screen readers or labelled', icons.unlabelled.length === 0, icons.unlabelled.join(', '));

    // Double click on the node's Approve: exactly one answer.
    await page.dblclick('.node[data-step-id="s7"] .node-actions button:first-of-type');
    await frames(page);
    const answers = (await posted(page)).filter((m) => m.type === 'approval/answer');
    const e2 = demo.approvals[0];
    check(
      'double-clicking Approve sends exactly one approval/answer',
      answers.length === 1 &&
        answers[0].requestId === e2.requestId &&
        answers[0].argsHash === e2.argsHash &&
        answers[0].decision === 'approve' &&
        answers[0].runId === DEMO_RUN_ID,
      JSON.stringify(answers),
    );
    const afterApprove = await page.evaluate(() => ({
      items: document.querySelectorAll('.approvals-bar .approvals-item').length,
      bulkHidden: (document.querySelector('.approvals-buttons') as HTMLElement).hidden,
      node: [...document.querySelectorAll('.node[data-step-id="s7"] .node-actions button')].map((b) => `${b.textContent}:${(b as HTMLButtonElement).disabled}`),
    }));
    check(
      'after answering, its buttons stay disabled, the approval bar keeps the other one and "Approve all" goes (1 left)',
      afterApprove.items === 1 && afterApprove.bulkHidden && afterApprove.node.every((b) => b.endsWith(':true')),
      afterApprove.node.join(','),
    );

    // Deny with feedback from the details pane.
    await page.click('.node[data-step-id="s3"] .node-desc');
    await frames(page);
    await page.click('.details vscode-textarea.feedback');
    await page.keyboard.type('Keep the README change small, please.');
    await page.click('.details .approval-card button:has-text("Deny")');
    await frames(page);
    const deny = (await posted(page)).filter((m) => m.type === 'approval/answer' && m.decision === 'deny');
    check(
      'Deny in the details pane sends the typed feedback',
      deny.length === 1 && deny[0].feedback === 'Keep the README change small, please.' && deny[0].callId === 'call_f2',
      JSON.stringify(deny[0] ?? {}),
    );

    await page.click('.node[data-step-id="s8"] .node-actions button');
    await page.click('.run-actions button:has-text("Cancel")');
    await frames(page);
    const msgs = await posted(page);
    check(
      'Retry posts step/retry for the blocked step',
      msgs.some((m) => m.type === 'step/retry' && m.stepId === 's8' && m.runId === DEMO_RUN_ID),
    );
    check('Cancel posts run/cancel', msgs.filter((m) => m.type === 'run/cancel').length === 1);

    // Keyboard: focus a node, arrows move, Enter opens details.
    await page.focus('.node[data-step-id="s1"]');
    await page.keyboard.press('ArrowDown');
    const focused = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.stepId ?? '');
    await page.keyboard.press('Enter');
    await frames(page);
    const keyboardTitle = await page.evaluate(() => document.querySelector('.details-body .details-title')?.textContent ?? '');
    check(
      'arrow keys move focus between nodes, Enter opens details',
      focused !== '' && focused !== 's1' && keyboardTitle === `Step ${focused}`,
      `focused ${focused}, details "${keyboardTitle}"`,
    );

    // Gap → one resync; invalid messages dropped; data rendered as text.
    const lastSeq = demo.events[demo.events.length - 1].seq;
    const late = new EventStamper(lastSeq + 5, demo.events[demo.events.length - 1].time + 1000);
    const gapBatch = [late.stamp({ type: 'step_output', stepId: 's7', output: 'x' })];
    await send(page, { type: 'host/events', runId: DEMO_RUN_ID, fromSeq: lastSeq + 5, events: gapBatch });
    await send(page, { type: 'host/events', runId: DEMO_RUN_ID, fromSeq: lastSeq + 5, events: gapBatch });
    await frames(page);
    const resyncs = (await posted(page)).filter((m) => m.type === 'webview/resync');
    check(
      'a seq gap posts one webview/resync from the missing seq',
      resyncs.length === 1 && resyncs[0].fromSeq === lastSeq + 1 && resyncs[0].runId === DEMO_RUN_ID,
      JSON.stringify(resyncs),
    );
    const warnBefore = await page.evaluate(() => window.__cortexHarness.warnings.length);
    await send(page, { type: 'host/events', runId: 42, events: 'nope' });
    await send(page, { type: 'host/unknown' });
    await frames(page);
    const warnAfter = await page.evaluate(() => window.__cortexHarness.warnings.filter((w) => w.includes('dropped an invalid host message')).length);
    check('invalid host messages are dropped with a console warning', warnAfter - warnBefore === 2 || warnAfter === 2, `${warnAfter} warnings`);
    const next = new EventStamper(lastSeq + 1, demo.events[demo.events.length - 1].time + 2000);
    const evil = '<img src=x onerror="window.__pwned=1"><b>bold</b>';
    await send(page, {
      type: 'host/events',
      runId: DEMO_RUN_ID,
      fromSeq: lastSeq + 1,
      events: [next.stamp({ type: 'step_added', stepId: 's10', description: evil, dependsOn: ['s6'], lineage: 's10', replanAttempts: 0, origin: 'planner' })],
    });
    await frames(page, 3);
    const xss = await page.evaluate(() => ({
      text: document.querySelector('.node[data-step-id="s10"] .node-desc')?.textContent,
      imgs: document.querySelectorAll('.node img, .details img').length,
      pwned: (window as unknown as { __pwned?: number }).__pwned,
    }));
    check('step text is rendered as text, never HTML', xss.text === evil && xss.imgs === 0 && xss.pwned === undefined, JSON.stringify(xss));

    // Restore after a reload: ready carries the run, the selection comes back.
    await page.click('.node[data-step-id="s6"] .node-desc');
    await frames(page);
    await page.reload();
    await page.waitForFunction(() => window.__cortexHarness?.posted.some((m) => m.type === 'webview/ready'));
    const again = (await posted(page))[0];
    check(
      'a reloaded panel asks for its run',
      again.runId === DEMO_RUN_ID,
      `${JSON.stringify(again)} from state ${await page.evaluate(() => sessionStorage.getItem('cortex-harness-state'))}`,
    );
    await send(page, { type: 'host/reset', runId: DEMO_RUN_ID, live: true, events: demo.events });
    await frames(page, 3);
    const restored = await page.evaluate(() => document.querySelector('.details-body .details-title')?.textContent ?? '');
    check('the selection is restored after the reload', restored === 'Step s6', restored);
    // The run fails: the result area shows the error and the failed step opens in the details pane.
    const fin = new EventStamper(demo.events[demo.events.length - 1].seq + 1, demo.events[demo.events.length - 1].time + 4000);
    const failedState = foldEvents(demo.events);
    const failEvents = [
      fin.stamp({
        type: 'tool_call_completed',
        stepId: 's7',
        callId: 'call_e2',
        status: 'error',
        result: 'npm test exited with code 1\n  1 failing\n  cli flags: rejects --max-steps 0',
        error: true,
        durationMs: 8400,
      }),
      fin.stamp({ type: 'step_verified', stepId: 's7', passed: false, reason: '1 of 2 tool calls failed', failedCallIds: ['call_e2'] }),
      fin.stamp({ type: 'step_status_changed', stepId: 's7', status: 'failed', reason: 'all_tool_calls_failed' }),
    ];
    for (const e of failEvents) applyEvent(failedState, e);
    failedState.status = 'failed';
    const error = 'Step s7 failed and the replan budget (2 of 2) is used up: npm test exited with code 1.';
    failEvents.push(fin.stamp({ type: 'run_finished', status: 'failed', error, plan: toSnapshot(failedState) }));
    await send(page, { type: 'host/events', runId: DEMO_RUN_ID, fromSeq: failEvents[0].seq, events: failEvents });
    await frames(page, 3);
    const failure = await page.evaluate(() => ({
      result: document.querySelector('.result .result-error')?.textContent ?? '',
      technical: document.querySelector('.result .technical pre')?.textContent ?? '',
      hidden: (document.querySelector('.result') as HTMLElement).hidden,
      details: document.querySelector('.details-body .details-title')?.textContent ?? '',
      cancel: (document.querySelector('.run-actions button') as HTMLElement).hidden,
    }));
    check(
      'a failed run says in words which step failed, with the raw error under Technical details',
      !failure.hidden && failure.result.includes('Run npm test and fix the failures the new validation causes failed: ') && failure.technical === error,
      failure.result,
    );
    check('the failed step opens in the details pane when the run fails', failure.details === 'Step s7', failure.details);
    check('Cancel goes away when the run is over', failure.cancel);
    await page.screenshot({ path: join(ARTIFACTS, 'panel-harness-failed.png') });
    const violations = await page.evaluate(() => window.__cortexHarness.csp.filter((v) => !v.sample.includes('rgb(1, 2, 3)')));
    check('no CSP violations during the whole session', violations.length === 0, JSON.stringify(violations.slice(0, 3)));
    check('no page errors', warnings.length === 0, warnings.join('; '));
  } finally {
    await browser.close();
    server.close();
    rmSync(outDir, { recursive: true, force: true });
  }

  console.log(failures ? `\npanel bench: ${failures} target(s)/check(s) missed` : '\npanel bench: all targets met');
  process.exit(failures ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error('panel bench crashed:', err);
  process.exit(1);
});
