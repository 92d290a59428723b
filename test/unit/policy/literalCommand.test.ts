import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { formatWords, parseLiteralCommand } from '../../../src/core/policy/literalCommand';
import { seededRandom } from '../../support/seededRandom';

/** The words a real shell makes of `command` (prefixed with printf, so the words become its arguments). */
function shellWords(shell: string, command: string): string[] {
  const output = execFileSync(shell, ['-c', `printf '%s\\0' ${command}`], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent-home' } });
  return output.split('\0').slice(0, -1);
}

const SHELLS = ['/bin/sh', '/usr/bin/dash', '/usr/bin/bash'];

describe('parseLiteralCommand', () => {
  const literal: Array<[string, string[]]> = [
    ['git status', ['git', 'status']],
    ['  ls\t-la   src  ', ['ls', '-la', 'src']],
    [`echo 'a b' "c d" e\\ f`, ['echo', 'a b', 'c d', 'e f']],
    [`echo '$HOME' '*' '~' '#x' 'a;b' '\\'`, ['echo', '$HOME', '*', '~', '#x', 'a;b', '\\']],
    [`echo "it's" 'say "hi"'`, ['echo', "it's", 'say "hi"']],
    [`echo '' ""`, ['echo', '', '']],
    [`find . \\( -name '*.ts' \\) \\! -path x`, ['find', '.', '(', '-name', '*.ts', ')', '!', '-path', 'x']],
    ['git log --format=%H%x00 HEAD~2..HEAD^', ['git', 'log', '--format=%H%x00', 'HEAD~2..HEAD^']],
    ['cat café.txt 日本', ['cat', 'café.txt', '日本']],
    ['echo a=b --x=y', ['echo', 'a=b', '--x=y']],
  ];
  for (const [command, words] of literal) {
    it(`reads ${JSON.stringify(command)} as ${JSON.stringify(words)}, as every installed shell does`, () => {
      const parsed = parseLiteralCommand(command);
      assert.deepEqual(parsed, { ok: true, words });
      for (const shell of SHELLS) assert.deepEqual(shellWords(shell, command), words, shell);
    });
  }

  const notLiteral: Array<[string, RegExp]> = [
    ["echo x$'\\'; touch m; #'", /"\$" expansion/],
    ['echo ${x:-$(id)}', /"\$" expansion/],
    ['echo "a$b"', /"\$" expansion inside double quotes/],
    ['echo "a\\b"', /backslash inside double quotes/],
    ['echo "a`id`"', /backtick/],
    ['ls *', /glob "\*"/],
    ['ls a?', /glob "\?"/],
    ['ls [a]', /glob "\["/],
    ['echo {a,b}', /brace/],
    ['cat ~/x', /tilde/],
    ['echo --prefix=~/x', /tilde/],
    ['echo a:~/x', /tilde/],
    ['ls; id', /operator ";"/],
    ['ls && id', /operator "&"/],
    ['ls | id', /operator "\|"/],
    ['(id)', /operator "\("/],
    ['ls >x', /redirection ">"/],
    ['ls <x', /redirection "<"/],
    ['ls # c', /comment/],
    ['! ls', /"!"/],
    ['ls\nid', /newline/],
    ['ls\rid', /U\+000D/],
    ['echo a\u2028b', /U\+2028/],
    ['echo a\u2029b', /U\+2029/],
    ['echo a\u00a0b', /U\+00A0/],
    ['echo a\u3000b', /U\+3000/],
    ['echo "\u202e"', /U\+202E inside quotes/],
    ["echo '\u200b'", /U\+200B inside quotes/],
    ['echo \\\u00e9', /backslash before/],
    ['echo a\\', /backslash at the end/],
    ["echo 'open", /unterminated single quote/],
    ['echo "open', /unterminated double quote/],
    ['X=1 ls', /assignment/],
    ['   ', /empty/],
    ["'' ls", /empty command name/],
  ];
  for (const [command, why] of notLiteral) {
    it(`refuses ${JSON.stringify(command)}`, () => {
      const parsed = parseLiteralCommand(command);
      assert.equal(parsed.ok, false);
      assert.match((parsed as { reason: string }).reason, why);
    });
  }

  it('agrees with sh, dash and bash on 300 random literal command lines', () => {
    const random = seededRandom(2026);
    const pick = (text: string) => text[Math.floor(random() * text.length)];
    const PLAIN = 'abcXYZ019_-.,/:@%+=^';
    const QUOTABLE = `abc $\`\\*?[]{}()<>|&;#!~"=`;
    const piece = (): string => {
      const kind = random();
      if (kind < 0.4) return Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(PLAIN)).join('');
      if (kind < 0.6) return `'${Array.from({ length: Math.floor(random() * 5) }, () => pick(QUOTABLE)).join('')}'`;
      if (kind < 0.8) return `"${Array.from({ length: Math.floor(random() * 5) }, () => pick(QUOTABLE.replace(/[$`\\"]/g, ''))).join('')}"`;
      return `\\${pick(QUOTABLE + PLAIN)}`;
    };
    let checked = 0;
    for (let n = 0; n < 300; n++) {
      const words = Array.from({ length: 1 + Math.floor(random() * 4) }, () => Array.from({ length: 1 + Math.floor(random() * 3) }, piece).join(''));
      const command = `echo ${words.join(random() < 0.5 ? ' ' : ' \t ')}`;
      const parsed = parseLiteralCommand(command);
      assert.ok(parsed.ok, `${JSON.stringify(command)}: ${(parsed as { reason?: string }).reason}`);
      for (const shell of ['/usr/bin/dash', '/usr/bin/bash'])
        assert.deepEqual(shellWords(shell, command), parsed.words, `${shell}: ${JSON.stringify(command)}`);
      checked++;
    }
    assert.equal(checked, 300);
  });

  it('formatWords quotes what is not plain, and reads back to the same words', () => {
    const words = ['git', 'log', 'a b', "it's", '', '$x'];
    const shown = formatWords(words);
    assert.equal(shown, `git log 'a b' 'it'\\''s' '' '$x'`);
    assert.deepEqual(shellWords('/usr/bin/bash', shown), words);
  });
});
