import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { executeTool } from '../../../src/core/tools/toolExecutor';
import { HeadTailCapture, runCommandTool } from '../../../src/core/tools/workspace/runCommand';
import { createTempWorkspace, toolContext } from './workspaceFixture';

// These check the process handling itself, unsandboxed: PIDs written by the command must be host
// PIDs. The sandboxed behaviour (and what auto-approved commands may touch) is tested in
// test/unit/sandbox.
const UNSANDBOXED = { commandExecution: { sandboxMode: 'off' as const, network: false, envPassthrough: [] } };

/** Running (a killed process may linger as a zombie until its new parent reaps it: that is dead). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return existsSync('/proc') ? false : true;
  }
}

async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

describe('run_command', function () {
  this.timeout(15_000);
  let ws: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    const fixture = await createTempWorkspace();
    ws = fixture.ws;
    cleanup = () => fixture.cleanup();
  });
  afterEach(async () => cleanup());

  const run = (args: Record<string, unknown>, overrides = {}) =>
    executeTool(runCommandTool, runCommandTool.schema.parse(args), { ...toolContext(ws, overrides), ...UNSANDBOXED }, 32_768);

  it('runs in the workspace and returns stdout, stderr and the exit code', async () => {
    const result = await run({ command: 'pwd; echo out; echo err 1>&2' });
    assert.equal(result.ok, true);
    assert.equal(result.output, `${await realpath(ws)}\nout\nerr\n[exit code 0]`);
  });

  it('runs in a cwd inside the workspace', async () => {
    await run({ command: 'mkdir -p sub' });
    const result = await run({ command: 'pwd', cwd: 'sub' });
    assert.equal(result.output, `${path.join(await realpath(ws), 'sub')}\n[exit code 0]`);
    assert.match((await run({ command: 'pwd', cwd: 'missing' })).output, /'missing' does not exist/);
  });

  it('reports a non-zero exit as a failure with the output', async () => {
    const result = await run({ command: 'echo broken; exit 3' });
    assert.equal(result.ok, false);
    assert.equal(result.output, 'Command failed (exit code 3).\nbroken');
  });

  it('strips ANSI colours from what the model sees', async () => {
    const result = await run({ command: "printf '\\033[31mred\\033[0m\\n'" });
    assert.equal(result.output, 'red\n[exit code 0]');
  });

  it('kills the whole process group on timeout, keeping the output so far', async () => {
    const started = Date.now();
    const result = await run({ command: 'sleep 30 & echo $! > bg.pid; echo started; sleep 30', timeout_seconds: 1 });
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    assert.equal(result.ok, false);
    assert.match(result.output, /^Command timed out after 1 s and was stopped\.\nstarted/);
    const pid = Number(await readFile(path.join(ws, 'bg.pid'), 'utf8'));
    assert.ok(await waitUntil(() => !alive(pid), 2000), `background process ${pid} survived`);
  });

  it('kills the process group when cancelled', async () => {
    const controller = new AbortController();
    const pending = executeTool(
      runCommandTool,
      { command: 'sleep 30 & echo $! > bg.pid; sleep 30' },
      { ...toolContext(ws, { signal: controller.signal }), ...UNSANDBOXED },
      32_768,
    );
    await waitUntil(() => false, 300);
    controller.abort();
    const result = await pending;
    assert.equal(result.cancelled, true);
    assert.equal(result.ok, false);
    const pid = Number(await readFile(path.join(ws, 'bg.pid'), 'utf8'));
    assert.ok(await waitUntil(() => !alive(pid), 2000), `background process ${pid} survived`);
  });

  it('runs a command of literal words without a shell, from exactly those words', async () => {
    const result = await run({ command: `printf '%s|' a 'b c' "d;e" f\\ g '$HOME' '*'` });
    assert.equal(result.output, 'a|b c|d;e|f g|$HOME|*|\n[exit code 0]');
  });

  it('explains that a shell builtin needs the shell (and that cwd replaces cd)', async () => {
    assert.match((await run({ command: 'cd sub' })).output, /"cd" is a shell builtin.*Use the cwd argument/);
    assert.match((await run({ command: 'no-such-program-xyz' })).output, /Program "no-such-program-xyz" was not found on PATH/);
  });

  it('does not wait for background children that keep the pipes open', async () => {
    const started = Date.now();
    const result = await run({ command: 'sleep 20 & echo done' });
    assert.ok(Date.now() - started < 4000, `took ${Date.now() - started} ms`);
    assert.equal(result.output, 'done\n[exit code 0]');
  });
});

describe('HeadTailCapture', () => {
  it('keeps the head and the tail and counts what it dropped', () => {
    const capture = new HeadTailCapture(4);
    for (const part of ['abc', 'def', 'ghi', 'jkl', 'mno']) capture.push(Buffer.from(part));
    const text = capture.text();
    assert.ok(text.startsWith('abcd'));
    assert.ok(text.endsWith('mno'));
    assert.match(text, /\[\.\.\. (\d+) bytes of output dropped \.\.\.\]/);
    const dropped = Number(/(\d+) bytes/.exec(text)![1]);
    const kept = text.replace(/\n\[.*\]\n/, '');
    assert.equal(kept.length + dropped, 15);
  });
});
