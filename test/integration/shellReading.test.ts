import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseCommandLine, type CommandWord } from '../../src/core/policy/commandSegments';
import { seededRandom } from '../support/seededRandom';

// The command policy must read a line exactly as the shell that runs it (`/bin/sh -c`, dash on
// Debian) does: every simple command dash runs is one the deny rules saw, and no other. Each line
// below is run by the real /bin/sh in a scratch folder whose PATH holds only recording stubs
// (each writes its name and arguments to a log); the commands that ran are compared with the
// policy's list. Stubs named p… and touch/cat succeed, x… fail, so a generated `a && b` or
// `a || b` always runs both sides and the two lists can be compared exactly.

const SUCCEED = ['pa', 'pb', 'pc', 'touch', 'cat'];
const FAIL = ['xa', 'xb'];
const RESERVED = new Set(['!', '{', '}', 'if', 'then', 'elif', 'else', 'fi', 'do', 'done', 'while', 'until']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const SEP = '\u001f';

interface Ran {
  name: string;
  args: string[];
}
/** An argument that expands at run time: one field, or (an unquoted substitution that may print nothing) zero or one. */
const ANY = { any: 'one' } as const;
const OPTIONAL = { any: 'optional' } as const;
type ReadArg = string | typeof ANY | typeof OPTIONAL;
/** One simple command the policy read: its name and arguments. */
interface Read {
  name: string;
  args: ReadArg[];
}

let scratch = '';
let bin = '';
let runs = 0;

async function runInShell(command: string): Promise<{ ran: Ran[]; stderr: string; status: number }> {
  const n = runs++;
  const log = path.join(scratch, 'logs', String(n));
  const cwd = path.join(scratch, 'work', String(n));
  await mkdir(log, { recursive: true });
  await mkdir(cwd, { recursive: true });
  const { stderr, status } = await new Promise<{ stderr: string; status: number }>((resolve, reject) => {
    // Every process of the line inherits the pipe on fd 3 (no test line redirects it), so it
    // closes only once the last one, an `&` job whose output went elsewhere included, has ended.
    const child = spawn('/bin/sh', ['-c', command], { cwd, env: { PATH: bin, STUB_LOG: log }, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    let stderrText = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderrText += chunk.toString()));
    const lastHolder = new Promise<void>((done) => {
      const fd3 = child.stdio[3] as NodeJS.ReadableStream;
      fd3.on('close', done);
      fd3.resume();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      void lastHolder.then(() => {
        clearTimeout(killer);
        resolve({ stderr: stderrText, status: code ?? -1 });
      });
    });
  });
  const ran: Ran[] = [];
  for (const file of await readdir(log)) {
    for (const record of (await readFile(path.join(log, file), 'utf8')).split('\u001e')) {
      if (record === '') continue;
      const [name, ...args] = record.split(SEP).slice(0, -1);
      ran.push({ name: name, args });
    }
  }
  return { ran, stderr, status };
}

/** The policy's simple commands, as the shell would run them: reserved words and assignments in front are not commands. */
function readByPolicy(command: string): { read: Read[]; errors: string[] } {
  const parsed = parseCommandLine(command);
  const read: Read[] = [];
  for (const segment of parsed.segments) {
    let words = segment.words;
    while (words.length > 0 && (RESERVED.has(words[0].raw) || (ASSIGNMENT.test(words[0].raw) && !words[0].raw.startsWith('=')))) words = words.slice(1);
    if (words.length === 0) continue;
    const [name, ...args] = words;
    read.push({ name: name.expands ? '?' : name.value, args: args.map(readArg) });
  }
  return { read, errors: parsed.errors };
}

function readArg(word: CommandWord): ReadArg {
  if (!word.expands) return word.value;
  return /^(?:\$\(.*\)|`.*`)$/s.test(word.raw.replace(/\\\n/g, '')) ? OPTIONAL : ANY;
}

function argsFit(read: readonly ReadArg[], ran: readonly string[]): boolean {
  if (read.length === 0) return ran.length === 0;
  const [first, ...rest] = read;
  if (first === OPTIONAL && argsFit(rest, ran)) return true;
  if (ran.length === 0) return false;
  return (typeof first !== 'string' || first === ran[0]) && argsFit(rest, ran.slice(1));
}

function fits(read: Read, ran: Ran): boolean {
  return read.name === ran.name && argsFit(read.args, ran.args);
}

/** Pairs every command read with one that ran; returns what is left over on either side. */
function difference(read: Read[], ran: Ran[]): { notRun: Read[]; notRead: Ran[] } {
  const left = [...ran];
  const notRun: Read[] = [];
  // Fully known commands first, so a wildcard argument cannot take another command's match.
  const unknown = (command: Read) => command.args.filter((arg) => typeof arg !== 'string').length;
  const ordered = [...read].sort((a, b) => unknown(a) - unknown(b));
  for (const command of ordered) {
    const index = left.findIndex((candidate) => fits(command, candidate));
    if (index < 0) notRun.push(command);
    else left.splice(index, 1);
  }
  return { notRun, notRead: left };
}

async function compare(command: string): Promise<string | undefined> {
  const shell = await runInShell(command);
  const policy = readByPolicy(command);
  const { notRun, notRead } = difference(policy.read, shell.ran);
  if (/Syntax error/.test(shell.stderr)) {
    // dash refused the line: the policy must say it could not read it, and still list whatever ran.
    if (policy.errors.length === 0) return `dash refused it (${shell.stderr.trim()}) but the policy reported no error`;
    if (notRead.length > 0) return `ran but not read by the policy: ${JSON.stringify(notRead)}`;
    return undefined;
  }
  if (shell.stderr !== '') return `the shell complained (the test line is wrong): ${shell.stderr.trim()}`;
  if (notRun.length > 0 || notRead.length > 0) return `read by the policy but not run: ${JSON.stringify(notRun)}; ran but not read: ${JSON.stringify(notRead)}`;
  return undefined;
}

/** Generates lines in which every simple command runs (see file comment), from one seed. */
function generator(seed: number) {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const chance = (p: number) => random() < p;
  let tag = 0;
  let heredocs: string[] = [];
  const gap = () => pick([' ', ' ', ' ', '  ', '\t', ' \\\n']);

  const word = (depth: number, topLevel: boolean): string => {
    const forms: Array<() => string> = [
      () => pick(['a1', 'b-2', 'x.y', 'k=v', '%s']),
      () => `'${pick(['a b', 'a;b', 'x && y', '$(pa)', '`pb`', '#c', '\\', '"', 'a\\\nb'])}'`,
      () => `"${pick(['a b', 'a;b|c', "it's", '\\"', '\\\\', '\\$x', 'a\\\nb', '#'])}"`,
      () => pick(['a\\;b', '\\&\\&', '\\|x', '\\#y', '\\$z', 'a\\ b', '\\\\', "\\'"]),
      () => `x$'${pick(['a b', ';', '\\', 'y ; z', '#'])}'`,
      () => `${pick(['a', 'b'])}#${pick(['c', 'd'])}`,
      () => `a\\\nb`,
      () => `"$((${pick(['1', '2 + 3', '(4) * 5'])}))"`,
      () => `$'a'$"b"`,
    ];
    if (depth < 3) {
      forms.push(() => {
        // The space keeps `$( (` from reading as arithmetic `$((`.
        const body = `$( ${list(depth + 1, false)} )`;
        return chance(0.5) ? `"${body}"` : body;
      });
      forms.push(() => `"$(( 0${'$('}${simple(depth + 1, false)}) + 1 ))"`);
      forms.push(() => `"\`${simple(3, false).replace(/[\\`$]/g, '\\$&')}\`"`);
    }
    if (topLevel && chance(0.1)) return heredoc(depth);
    return pick(forms)();
  };

  const heredoc = (depth: number): string => {
    const delimiter = pick(['EOF', 'END']);
    const quoted = chance(0.5);
    const strip = chance(0.3);
    const inner = simple(depth + 1, false);
    const indent = strip ? '\t' : '';
    heredocs.push(`${indent}line $(${inner}) \`pc t${tag++}\`\n${indent}plain ; text\n${indent}${delimiter}\n`);
    // Under a quoted delimiter the body's commands do not run (and the policy must not list them).
    return `<<${strip ? '-' : ''}${quoted ? `'${delimiter}'` : delimiter}`;
  };

  const simple = (depth: number, topLevel: boolean, status = chance(0.7) ? 0 : 1): string => {
    const name = status === 0 ? pick(SUCCEED) : pick(FAIL);
    const parts = [chance(0.1) ? `V${tag}=${pick(['1', "'a b'"])}` : '', name, `t${tag++}`];
    const count = Math.floor(random() * 3);
    for (let i = 0; i < count; i++) parts.push(word(depth, topLevel));
    if (chance(0.15)) parts.push(pick(['> out', '>>out', '2>/dev/null', '< /dev/null', '>|o2', '>/dev/null', '2>&1']));
    return parts.filter(Boolean).join(gap());
  };

  /** A pipeline or compound command and its exit status. */
  const item = (depth: number, topLevel: boolean): { text: string; status: number } => {
    const roll = random();
    if (roll < 0.15 && depth < 3) {
      const inner = statusList(depth + 1, topLevel);
      return { text: `(${gap()}${inner.text}${gap()})`, status: inner.status };
    }
    if (roll < 0.25 && depth < 3) {
      const inner = statusList(depth + 1, topLevel);
      return { text: `{ ${inner.text}; }`, status: inner.status };
    }
    if (roll < 0.4) {
      const last = chance(0.7) ? 0 : 1;
      return { text: `${simple(depth, false)}${gap()}|${gap()}${simple(depth, false, last)}`, status: last };
    }
    if (roll < 0.45) {
      const status = chance(0.5) ? 0 : 1;
      return { text: `!${gap()}${simple(depth, topLevel, status)}`, status: 1 - status };
    }
    const status = chance(0.7) ? 0 : 1;
    return { text: simple(depth, topLevel, status), status };
  };

  const statusList = (depth: number, topLevel: boolean): { text: string; status: number } => {
    let { text, status } = item(depth, topLevel);
    const length = Math.floor(random() * (depth === 0 ? 4 : 2));
    for (let i = 0; i < length; i++) {
      const operators = [';', '&', status === 0 ? '&&' : '||', status === 0 ? '&\\\n&' : '|\\\n|'];
      if (topLevel) operators.push('\n');
      const operator = pick(operators);
      if (operator === '\n') {
        if (chance(0.3)) text += ` # comment ; pa never ${'`xa`'}`;
        text += '\n' + heredocs.join('');
        heredocs = [];
      } else text += operator === ';' || operator === '&' ? operator : gap() + operator;
      const next = item(depth, topLevel);
      text += gap() + next.text;
      status = next.status;
    }
    return { text, status };
  };

  const list = (depth: number, topLevel: boolean): string => statusList(depth, topLevel).text;

  return (): string => {
    heredocs = [];
    let line = list(0, true);
    if (chance(0.2)) line += ` # trailing ; pa comment`;
    if (heredocs.length > 0) line += '\n' + heredocs.join('');
    return line;
  };
}

const HAND_PICKED = [
  "pa x$'\\'; touch m0; #'",
  "pa $'\\'' ; touch m0 ; pa '\\'",
  'pa a &> f; pb',
  'pa a &>> f',
  'pa "$(pb "$(pc)")"',
  'pa "`pb \\`pc\\``"',
  'pa `pb`',
  'pa <<EOF\n$(pb)\n`pc`\nEOF\ntouch x',
  "pa <<'EOF'\n$(pb)\nEOF\npc",
  'pa <<-E\n\t$(pb)\n\tE\npc',
  'pa <<A <<B\n$(pb)\nA\n$(pc)\nB\n',
  'pa "$(cat <<EOF\n$(pb)\nEOF\n)"',
  'pa \\\n&& pb',
  'p\\\na t1',
  'pa $\\\n(pb)',
  'pa # ; pb',
  'pa a#b',
  'pa ";" \\; \';\'',
  '(pa; pb) | pc',
  '{ pa; pb; } && pc',
  '! pa || pb',
  '! xa && pb',
  'xa || pb && pc',
  'pa "$((1 + 0$(pb)))"',
  'pa "$(( `pb` + 1 ))"',
  'V=$(pb) pa',
  'pa ${U:-$(pb)}',
  'pa "${U:-"$(pb)"}"',
  'pa & pb &',
  'pa\npb\n\npc',
  'pa $"x"',
  'pa "a\\\nb"',
  "pa 'a\\\nb'",
  'pa \\#x #y',
  'pa 2>/dev/null >&-',
  '( ( pa ) )',
  'pa "$( (pb) )"',
  'pa <<EOF\n$(pb)',
  'pa $(pb) `pc`',
];

/** Lines dash refuses: the policy must report an error for each. */
const REFUSED = ['pa <(pb)', 'pa |& pb', 'pa <<< x', 'pa ;& pb', 'pa ; ; pb', 'pa\n;pb', 'pa ;; pb', 'pa )', 'pa "unterminated'];

describe('the command policy reads a line as /bin/sh runs it', function () {
  this.timeout(60_000);

  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'cortex-shell-reading-'));
    bin = path.join(scratch, 'bin');
    await mkdir(bin);
    // Each stub prints "1", so a substitution of it is one field and a number (`$((0$(pb) + 1))`).
    const stub = (status: number) =>
      `#!/bin/sh\nprintf '%s\\037' "\${0##*/}" "$@" >>"$STUB_LOG/$$"\nprintf '\\036' >>"$STUB_LOG/$$"\nprintf 1\nexit ${status}\n`;
    for (const name of SUCCEED) await writeFile(path.join(bin, name), stub(0), { mode: 0o755 });
    for (const name of FAIL) await writeFile(path.join(bin, name), stub(1), { mode: 0o755 });
  });

  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('the stubs record what runs (the harness can see a difference)', async () => {
    const shell = await runInShell('pa t1 "a b"; xa t2 || pb');
    assert.deepEqual(shell.ran.map((ran) => [ran.name, ...ran.args]).sort(), [['pa', 't1', 'a b'], ['pb'], ['xa', 't2']].sort());
    assert.match((await compare('pa; pb')) ?? '', /^$/);
    // A policy that missed a command, or read its arguments wrongly, would be caught:
    assert.equal(difference([{ name: 'pa', args: ['t1', 'a b'] }], shell.ran).notRead.length, 2);
    assert.equal(difference([{ name: 'pa', args: ['t1', 'a', 'b'] }], shell.ran).notRun.length, 1);
  });

  it("hand-picked lines: quotes, $'…', here-documents, comments, continuations, substitutions", async () => {
    const failures: string[] = [];
    for (const command of HAND_PICKED) {
      const problem = await compare(command);
      if (problem) failures.push(`${JSON.stringify(command)}: ${problem}`);
    }
    assert.deepEqual(failures, []);
  });

  it('lines dash refuses are reported as unreadable by the policy', async () => {
    const failures: string[] = [];
    for (const command of REFUSED) {
      const shell = await runInShell(command);
      if (!/Syntax error|end of file/.test(shell.stderr)) failures.push(`${JSON.stringify(command)}: dash accepted it (${shell.stderr})`);
      if (readByPolicy(command).errors.length === 0) failures.push(`${JSON.stringify(command)}: no policy error`);
    }
    assert.deepEqual(failures, []);
  });

  it('300 generated lines (seeded)', async () => {
    const next = generator(0x5eed);
    const commands = Array.from({ length: 300 }, next);
    const failures: string[] = [];
    // Four at a time: each line waits mostly on its processes.
    for (let i = 0; i < commands.length; i += 4) {
      const batch = commands.slice(i, i + 4);
      const problems = await Promise.all(batch.map(compare));
      problems.forEach((problem, j) => {
        if (problem) failures.push(`${JSON.stringify(batch[j])}: ${problem}`);
      });
    }
    assert.deepEqual(failures.slice(0, 10), [], `${failures.length} of 300 lines differ`);
  });
});
