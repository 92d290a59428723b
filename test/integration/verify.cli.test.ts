import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main';
import type { RunEvent } from '../../src/core/plan/events';
import { foldEvents } from '../../src/core/plan/reducer';
import { readTraceSync } from '../support/traceFile';
import { tempWorkspace } from '../support/agentHarness';
import { byStep, call, json, message, route, systemMessage, toolCalls, toolMessages } from '../support/scriptedReplies';
import type { ScriptedRequest } from '../support/scriptedServer';
import { useScriptedServer } from '../support/useScriptedServer';

// Steps that prove their work, through the CLI (docs/design.md, “The verifier and how a step
// ends”): the plan's object form with every check kind, a check command denied with --approve
// none, a replan that gets the failed checks, --require-verified, and what the terminal shows.

function collect() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d) => (text += d));
  return { stream, text: () => text };
}

async function cli(argv: string[]) {
  const stdout = collect();
  const stderr = collect();
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const code = await main(argv, { stdout: stdout.stream, stderr: stderr.stream, stdin, cwd: process.cwd(), env: {} });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** A workspace, its trace path and a config file with the scripted endpoint (and `settings`). */
function setup(baseUrl: string, settings: Record<string, unknown> = {}) {
  const ws = tempWorkspace();
  const stamp = `${Date.now()}-${Math.random().toString(16).slice(2)}`;
  const trace = join(ws, '..', `${stamp}-trace.jsonl`);
  const config = join(ws, '..', `${stamp}-cfg.json`);
  writeFileSync(config, JSON.stringify({ 'cortex.llm.baseUrl': baseUrl, 'cortex.llm.model': 'm', 'cortex.llm.maxRetries': 0, ...settings }));
  return { ws, trace, args: ['--workspace', ws, '--config', config, '--trace', trace] };
}

const RUN_TESTS = 'Run the tests of the date module and report whether they pass';

const verified = (events: RunEvent[]) => events.filter((e): e is Extract<RunEvent, { type: 'step_verified' }> => e.type === 'step_verified');

describe('cortex CLI: steps that prove their work', function () {
  this.timeout(60_000);
  const server = useScriptedServer();

  it('the object form with every check kind: each check recorded with its evidence, the summary counts the verdicts', async () => {
    const { ws, trace, args } = setup(server().baseUrl);
    writeFileSync(join(ws, 'package.json'), '{"name": "dates"}\n');
    server().setHandler(
      route({
        planner: json({
          title: 'Dates',
          steps: [
            { description: 'Read package.json', expects: [{ called: 'read_file' }] },
            {
              description: 'Write src/date.js exporting parseDate',
              expects: [
                { changed: 'src/*.js' },
                { exists: 'src/date.js' },
                { absent: 'src/old.js' },
                { contains: 'src/date.js', text: 'parseDate' },
                { contains: 'src/date.js', pattern: '^module\\.exports' },
              ],
            },
            { description: RUN_TESTS, expects: [{ command: 'node src/date.js', exit: 0 }, { answer: 'tests? pass' }] },
            { description: 'Summarise for the user', expects: [] },
          ],
          // Only what the checks need; each step's key is longer than the descriptions of its dependencies.
          dependencies: { 2: [1] },
        }),
        executor: byStep({
          'Read package.json': [toolCalls(call('read_file', { path: 'package.json' })), message('The package is called dates.')],
          'Write src/date.js exporting parseDate': [
            toolCalls(call('write_file', { path: 'src/date.js', content: 'module.exports = { parseDate: (s) => new Date(s) };\n' })),
            message('I created src/date.js exporting parseDate.'),
          ],
          [RUN_TESTS]: [message('The tests pass.')],
          'Summarise for the user': [message('parseDate is in src/date.js.')],
        }),
        aggregator: message('All done.'),
      }),
    );
    const result = await cli(['run', ...args, '--approve', 'all', 'add parseDate']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /^proof: 3 verified, 1 unverified, 0 failed$/m);
    const { events } = readTraceSync(trace);
    const added = events.filter((e) => e.type === 'step_added');
    assert.deepEqual(
      added.map((e) => (e.type === 'step_added' ? e.expects?.length : -1)),
      [1, 5, 2, 0],
    );
    // Steps run in parallel: the verdicts in step order.
    const verdicts = ['s1', 's2', 's3', 's4'].map((id) => verified(events).find((v) => v.stepId === id)!);
    assert.deepEqual(
      verdicts.map((v) => v.verdict),
      ['verified', 'verified', 'verified', 'unverified'],
    );
    const writeChecks = verdicts[1].checks!;
    assert.deepEqual(
      writeChecks.map((c) => [c.kind, c.passed]),
      [
        ['changed', true],
        ['exists', true],
        ['absent', true],
        ['contains', true],
        ['contains', true],
        ['claim', true],
      ],
    );
    const command = verdicts[2].checks!.find((c) => c.kind === 'command')!;
    assert.equal(command.evidence?.exitCode, 0);
    assert.match(command.evidence?.callId ?? '', /^verify_/);
    // The claim "The tests pass." is backed by the command check that held.
    assert.equal(verdicts[2].checks!.find((c) => c.kind === 'claim')?.passed, true);
    // Replay: folding the trace gives the same verdicts and checks.
    const replayed = foldEvents(events);
    const runStep = [...replayed.steps.values()].find((s) => s.description === RUN_TESTS)!;
    assert.equal(runStep.verdict?.verdict, 'verified');
    assert.deepEqual(runStep.verdict?.checks, verdicts[2].checks);
    assert.equal(readFileSync(join(ws, 'src', 'date.js'), 'utf8').includes('parseDate'), true);
  });

  it('a check command denied with --approve none fails its check with the reason, one line under its step', async () => {
    const { ws, trace, args } = setup(server().baseUrl, { 'cortex.replan.maxAttempts': 0 });
    writeFileSync(join(ws, 'build.js'), 'process.exit(0);\n');
    server().setHandler(
      route({
        planner: json({ title: 'Build', steps: [{ description: 'Make the build pass', expects: [{ command: 'node build.js', exit: 0 }] }] }),
        executor: message('The build is ready.'),
        aggregator: message('done'),
      }),
    );
    const result = await cli(['run', ...args, '--approve', 'none', 'build it']);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^ {4}s1 ✗ `node build\.js` exits 0: the command did not run: denied: .*denied by --approve none.*$/m);
    assert.match(result.stderr, /^ {2}s1 → failed \(postcondition_failed\)$/m);
    assert.match(result.stderr, /^proof: 0 verified, 0 unverified, 1 failed$/m);
    const [verdict] = verified(readTraceSync(trace).events);
    assert.equal(verdict.verdict, 'failed');
    assert.equal(verdict.checks?.[0].passed, false);
  });

  it('a failed check goes to the replanner with its evidence, and the redesigned step carries its own expects', async () => {
    const { ws, trace, args } = setup(server().baseUrl);
    const replannerRequests: ScriptedRequest[] = [];
    server().setHandler(
      route({
        planner: json({ title: 'Hello', steps: [{ description: 'Write a.txt saying hello', expects: [{ contains: 'a.txt', text: 'hello' }] }] }),
        executor: byStep({
          'Write a.txt saying hello': [toolCalls(call('write_file', { path: 'a.txt', content: 'helo\n' })), message('Done.')],
          'Rewrite a.txt': (req) =>
            toolMessages(req).length ? message('I wrote a.txt again.') : toolCalls(call('write_file', { path: 'a.txt', content: 'hello\n' })),
        }),
        replanner: (req) => {
          replannerRequests.push(req);
          return json({
            action: 'redesign',
            new_steps: [{ description: 'Rewrite a.txt with the exact word hello', expects: [{ contains: 'a.txt', text: 'hello' }, { changed: 'a.txt' }] }],
            new_dependencies: {},
          });
        },
        aggregator: message('done'),
      }),
    );
    const result = await cli(['run', ...args, 'say hello']);
    assert.equal(result.code, 0, result.stderr);
    const prompt = JSON.stringify(replannerRequests[0].body.messages);
    assert.match(prompt, /Checks of the verifier/);
    assert.match(prompt, /✗ a\.txt contains \\"hello\\": a\.txt does not contain the text \\"hello\\"/);
    assert.match(systemMessage(replannerRequests[0]), /"expects": \[\] declares a step that needs no evidence/, 'the replanner is asked for expects');
    const { events } = readTraceSync(trace);
    const redesigned = events.find((e) => e.type === 'step_added' && e.origin === 'replan');
    assert.deepEqual(redesigned?.type === 'step_added' ? redesigned.expects : undefined, [{ contains: 'a.txt', text: 'hello' }, { changed: 'a.txt' }]);
    assert.match(result.stderr, /^proof: 1 verified, 0 unverified, 1 failed$/m);
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'hello\n');
  });

  it('--require-verified fails an unverified step with no_evidence; a step declared as needing none still completes', async () => {
    const script = () =>
      route({
        planner: json({
          title: 'Answer',
          steps: ['Say what the project does', { description: 'Thank the user', expects: [] }],
          dependencies: { 1: [0] },
        }),
        executor: byStep({ 'Say what': [message('It parses dates.')], Thank: [message('Thank you.')] }),
        replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {}, reason: 'nothing to prove' }),
        aggregator: message('done'),
      });
    server().setHandler(script());
    const plain = setup(server().baseUrl);
    const relaxed = await cli(['run', ...plain.args, 'explain']);
    assert.equal(relaxed.code, 0, relaxed.stderr);
    assert.match(relaxed.stderr, /^proof: 0 verified, 2 unverified, 0 failed$/m);

    server().setHandler(script());
    const strict = setup(server().baseUrl);
    const required = await cli(['run', ...strict.args, '--require-verified', 'explain']);
    assert.equal(required.code, 1, required.stderr);
    assert.match(required.stderr, /s1 verification failed: no_evidence: /);
    assert.match(required.stderr, /^ {2}s1 → failed \(no_evidence\)$/m);
    const [first] = verified(readTraceSync(strict.trace).events);
    assert.equal(first.verdict, 'failed');

    // The setting does the same as the flag; the step with expects: [] is never failed by it.
    server().setHandler(
      route({
        planner: json({ title: 'Thanks', steps: [{ description: 'Thank the user', expects: [] }] }),
        executor: message('Thank you.'),
        aggregator: message('done'),
      }),
    );
    const setting = setup(server().baseUrl, { 'cortex.verify.requireVerified': true });
    const waived = await cli(['run', ...setting.args, 'thank']);
    assert.equal(waived.code, 0, waived.stderr);
    assert.match(waived.stderr, /^proof: 0 verified, 1 unverified, 0 failed$/m);
  });
});
