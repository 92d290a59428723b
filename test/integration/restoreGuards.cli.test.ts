import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main';
import { ContentStore, hashBytes } from '../../src/core/checkpoints/contentStore';
import type { FileChange } from '../../src/core/plan/changeSchema';
import { readTraceSync } from '../support/traceFile';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';

// A trace and its checkpoint folder are input anyone can forge (docs/design.md, “Checkpoints and
// revert”): through the real CLI, a forged trace asking to restore `.git/config`, an editor task
// and a CI workflow writes none of them without the person's word, and a trace recorded for
// another folder is refused by revert, diff and resume.

async function cli(argv: string[], answers?: string) {
  const collect = () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (d) => (text += d));
    return { stream, text: () => text };
  };
  const stdout = collect();
  const stderr = collect();
  // With answers, stdin is a terminal that types them.
  const stdin = Object.assign(new PassThrough(), { isTTY: answers !== undefined });
  if (answers !== undefined) stdin.end(answers);
  const code = await main(argv, { stdout: stdout.stream, stderr: stderr.stream, stdin, cwd: process.cwd(), env: process.env });
  const result = { code, stdout: stdout.text(), stderr: stderr.text() };
  assert.doesNotMatch(result.stderr, /\n\s+at /, `stack trace in:\n${result.stderr}`);
  return result;
}

const EVIL = Buffer.from('[core]\n\tfsmonitor = "touch /tmp/cortex-pwned"\n');
const ORIGINAL_GIT_CONFIG = '[core]\n\trepositoryformatversion = 0\n';

describe('restoring trusts nothing the trace says: protected paths, .git and the workspace', function () {
  this.timeout(60_000);
  const server = useScriptedServer();

  /** A real finished run (s1 writes a.txt) in `ws`, its trace beside it. */
  async function finishedRun() {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-forge-')));
    const ws = join(base, 'ws');
    mkdirSync(join(ws, '.git'), { recursive: true });
    writeFileSync(join(ws, '.git', 'config'), ORIGINAL_GIT_CONFIG);
    const trace = join(base, 'run.jsonl');
    server().setHandler(
      route({
        planner: json({ title: 'One', steps: ['Write a.txt'], dependencies: {} }),
        executor: (req) => (toolMessages(req).length > 0 ? message('written') : toolCalls(call('write_file', { path: 'a.txt', content: 'a\n' }))),
        aggregator: message('done'),
      }),
    );
    const ran = await cli(['run', '--workspace', ws, '--base-url', server().baseUrl, '--model', 'm', '--trace', trace, '--approve', 'all', 'write it']);
    assert.equal(ran.code, 0, ran.stderr);
    return { base, ws, trace };
  }

  /** Appends an event after the trace's last one, as an attacker with write access to the trace would. */
  function forge(trace: string, event: Record<string, unknown>) {
    const last = readTraceSync(trace).events.at(-1)!;
    appendFileSync(trace, `${JSON.stringify({ seq: last.seq + 1, time: last.time + 1, ...event })}\n`);
  }

  const deleted = (path: string, before: string): FileChange => ({ path, kind: 'deleted', before, after: null, restorable: true });

  it('a forged trace asking to restore .git/config, .vscode/tasks.json and a workflow writes none of them without a terminal; --allow-protected names one', async () => {
    const { ws, trace } = await finishedRun();
    const evil = await new ContentStore(`${trace}.checkpoints`).put(EVIL);
    forge(trace, {
      type: 'files_changed',
      stepId: 's1',
      callId: 'forged',
      changes: [
        { path: '.git/config', kind: 'modified', before: evil, after: hashBytes(Buffer.from(ORIGINAL_GIT_CONFIG)), restorable: true },
        deleted('.vscode/tasks.json', evil),
        deleted('.github/workflows/x.yml', evil),
        deleted('sub/.git/hooks/pre-commit', evil),
      ],
    });
    const files = ['.vscode/tasks.json', '.github/workflows/x.yml', 'sub/.git/hooks/pre-commit'];

    const refused = await cli(['revert', '--workspace', ws, '--trace', trace, '--force']);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stdout, /left alone: \.git\/config — it is inside a \.git folder, which a restore never writes/);
    assert.match(refused.stdout, /left alone: \.vscode\/tasks\.json — it is a protected path \(cortex\.policy\.protectedPaths write: \*\*\/\.vscode\/\*\*\)/);
    assert.match(refused.stdout, /left alone: \.github\/workflows\/x\.yml — it is a protected path/);
    assert.match(
      refused.stderr,
      /2 protected paths left alone \(no terminal to ask\): \.github\/workflows\/x\.yml, \.vscode\/tasks\.json; give --allow-protected PATH/,
    );
    assert.equal(readFileSync(join(ws, '.git', 'config'), 'utf8'), ORIGINAL_GIT_CONFIG);
    for (const file of files) assert.equal(existsSync(join(ws, file)), false, file);
    assert.equal(existsSync(join(ws, 'a.txt')), false, 'what is not protected is still put back');

    // Naming a path on the command line is the person's word for that path, and only that one.
    forge(trace, {
      type: 'files_changed',
      stepId: 's1',
      callId: 'forged-2',
      changes: [deleted('.vscode/tasks.json', evil), deleted('.github/workflows/x.yml', evil)],
    });
    const named = await cli([
      'revert',
      '--workspace',
      ws,
      '--trace',
      trace,
      '--force',
      '--allow-protected',
      '.vscode/tasks.json',
      '--allow-protected',
      '.git/config',
    ]);
    assert.equal(named.code, 1, named.stderr);
    assert.equal(readFileSync(join(ws, '.vscode/tasks.json'), 'utf8'), EVIL.toString());
    assert.equal(existsSync(join(ws, '.github/workflows/x.yml')), false);
    assert.equal(readFileSync(join(ws, '.git', 'config'), 'utf8'), ORIGINAL_GIT_CONFIG, '.git is never written, named or not');
  });

  it('on a terminal, each protected path is asked about on its own; .git is never asked about', async () => {
    const { ws, trace } = await finishedRun();
    const evil = await new ContentStore(`${trace}.checkpoints`).put(EVIL);
    forge(trace, {
      type: 'files_changed',
      stepId: 's1',
      callId: 'forged',
      changes: [deleted('.vscode/tasks.json', evil), deleted('.github/workflows/x.yml', evil), deleted('.git/hooks/pre-push', evil)],
    });
    const asked = await cli(['revert', '--workspace', ws, '--trace', trace], 'n\ny\n');
    assert.equal(asked.code, 1, asked.stderr);
    const questions = asked.stderr.match(/cortex revert would write (\S+): /g) ?? [];
    assert.deepEqual(questions, ['cortex revert would write .github/workflows/x.yml: ', 'cortex revert would write .vscode/tasks.json: ']);
    assert.equal(existsSync(join(ws, '.github/workflows/x.yml')), false, 'answered no');
    assert.equal(readFileSync(join(ws, '.vscode/tasks.json'), 'utf8'), EVIL.toString(), 'answered yes');
    assert.equal(existsSync(join(ws, '.git/hooks/pre-push')), false);
  });

  it('a forged revert to undo writes no protected path and nothing in .git', async () => {
    const { ws, trace } = await finishedRun();
    const evil = await new ContentStore(`${trace}.checkpoints`).put(EVIL);
    forge(trace, {
      type: 'files_reverted',
      reason: 'user',
      stepIds: ['s1'],
      files: [
        { path: '.git/hooks/post-checkout', from: evil, to: null },
        { path: '.vscode/settings.json', from: evil, to: null },
        { path: '.github/workflows/ci.yml', from: evil, to: null },
      ],
      conflicts: [],
    });
    const undo = await cli(['revert', '--workspace', ws, '--trace', trace, '--undo', '--force']);
    assert.equal(undo.code, 1, undo.stderr);
    assert.match(undo.stdout, /left alone: \.git\/hooks\/post-checkout — it is inside a \.git folder/);
    for (const file of ['.git/hooks/post-checkout', '.vscode/settings.json', '.github/workflows/ci.yml']) assert.equal(existsSync(join(ws, file)), false, file);
  });

  it('a trace recorded for another folder is refused by revert, diff and resume, naming both folders', async () => {
    const { base, ws, trace } = await finishedRun();
    const here = join(base, 'here');
    mkdirSync(here);
    // The same run as if interrupted (no run_finished), for resume.
    const interrupted = join(base, 'interrupted.jsonl');
    writeFileSync(
      interrupted,
      readFileSync(trace, 'utf8')
        .split('\n')
        .filter((line) => line !== '' && !line.includes('"type":"run_finished"'))
        .map((line) => `${line}\n`)
        .join(''),
    );
    for (const argv of [
      ['revert', '--workspace', here, '--trace', trace],
      ['revert', '--workspace', here, '--trace', trace, '--undo'],
      ['diff', '--workspace', here, '--trace', trace],
      // Without --workspace the current folder is the workspace, not the trace's.
      ['revert', '--trace', trace],
      ['resume', '--workspace', here, '--trace', interrupted],
    ]) {
      const result = await cli(argv);
      assert.equal(result.code, 2, `${argv.join(' ')}: ${result.stderr}`);
      const given = argv.includes('--workspace') ? here : process.cwd();
      assert.ok(result.stderr.includes(ws) && result.stderr.includes(given), `${argv.join(' ')}: ${result.stderr}`);
    }
    assert.equal(readFileSync(join(ws, 'a.txt'), 'utf8'), 'a\n', 'nothing was reverted');
    assert.equal(existsSync(join(here, 'a.txt')), false);
  });
});
