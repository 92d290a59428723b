import assert from 'node:assert/strict';
import { parseCommandLine, type ShellDialect } from '../../../src/core/policy/commandSegments';

/**
 * The flat view of `parseCommandLine` these tests compare: segment and redirection texts as written. A quoted or
 * escaped operator is not a split; $(…) and `…` bodies become segments of their own.
 */
function splitCommand(
  command: string,
  dialect: ShellDialect = 'dash',
): {
  segments: string[];
  operators: string[];
  substitutions: string[];
  redirections: string[];
  errors: string[];
} {
  const parsed = parseCommandLine(command, dialect);
  return {
    segments: parsed.segments.map((segment) => segment.text),
    operators: parsed.operators,
    substitutions: parsed.substitutions,
    redirections: parsed.redirections.map((redirection) => redirection.text),
    errors: parsed.errors,
  };
}

describe('splitCommand', () => {
  describe('chain operators', () => {
    const cases: Array<[string, string[], string[]]> = [
      ['a ; b', ['a', 'b'], [';']],
      ['a && b', ['a', 'b'], ['&&']],
      ['a || b', ['a', 'b'], ['||']],
      ['a | b', ['a', 'b'], ['|']],
      ['a & b', ['a', 'b'], ['&']],
      ['a\nb', ['a', 'b'], ['\n']],
      ['a;b&&c||d|e&f', ['a', 'b', 'c', 'd', 'e', 'f'], [';', '&&', '||', '|', '&']],
      ['(cd x && make) || echo no', ['cd x', 'make', 'echo no'], ['(', '&&', ')', '||']],
    ];
    for (const [command, segments, operators] of cases) {
      it(`splits ${JSON.stringify(command)}`, () => {
        const result = splitCommand(command);
        assert.deepEqual(result.segments, segments);
        assert.deepEqual(result.operators, operators);
        assert.deepEqual(result.errors, []);
      });
    }

    it('reads bash-only operators as dash does: |& is refused, &> is a background job then a redirection', () => {
      assert.deepEqual(splitCommand('a |& b', 'bash').operators, ['|&']);
      const pipeAmp = splitCommand('a |& b');
      assert.deepEqual(pipeAmp.segments, ['a', 'b']);
      assert.ok(pipeAmp.errors.some((error) => /bash syntax/.test(error)));
      const both = parseCommandLine('a &> f');
      assert.deepEqual(both.operators, ['&']);
      assert.deepEqual(
        both.segments.map((segment) => [segment.text, segment.words.length]),
        [
          ['a', 1],
          ['> f', 0],
        ],
      );
      assert.deepEqual(parseCommandLine('a &> f', 'bash').operators, []);
    });

    it('keeps a trailing background operator without an empty segment', () => {
      assert.deepEqual(splitCommand('sleep 5 &'), { segments: ['sleep 5'], operators: ['&'], substitutions: [], redirections: [], errors: [] });
    });
  });

  describe('quotes and escapes hide operators', () => {
    const single: Array<[string, string]> = [
      [`echo 'a; b && c || d | e'`, 'single quotes'],
      [`echo "a; b && c | d $HOME"`, 'double quotes'],
      ['echo a\\;b \\&\\& c \\| d', 'backslash escapes'],
      [`echo "it's" 'say "hi"; ok'`, 'mixed quotes'],
      ['echo a\\\nb', 'line continuation'],
      ['grep -e "x|y" file', 'a pipe inside a pattern'],
    ];
    for (const [command, label] of single) {
      it(`does not split on ${label}`, () => {
        const result = splitCommand(command);
        assert.equal(result.segments.length, 1, JSON.stringify(result));
        assert.deepEqual(result.operators, []);
      });
    }

    it('removes quotes from word values but keeps the segment text as written', () => {
      const [segment] = parseCommandLine(`echo "a b" 'c' d\\ e`).segments;
      assert.equal(segment.text, `echo "a b" 'c' d\\ e`);
      assert.deepEqual(
        segment.words.map((word) => word.value),
        ['echo', 'a b', 'c', 'd e'],
      );
    });

    it('drops comments, including operators inside them', () => {
      assert.deepEqual(splitCommand('ls # ; rm -rf /\npwd').segments, ['ls', 'pwd']);
      assert.deepEqual(splitCommand('echo a#b').segments, ['echo a#b']);
    });
  });

  describe('substitutions', () => {
    it('extracts $(…) bodies as segments of their own', () => {
      const result = splitCommand('ls $(rm -rf /) && echo done');
      assert.deepEqual(result.segments, ['ls $(rm -rf /)', 'rm -rf /', 'echo done']);
      assert.deepEqual(result.substitutions, ['rm -rf /']);
    });

    it('extracts backtick bodies, nested ones included', () => {
      const result = splitCommand('echo `echo \\`date\\``');
      assert.deepEqual(result.segments, ['echo `echo \\`date\\``', 'echo `date`', 'date']);
      assert.deepEqual(result.substitutions, ['echo `date`', 'date']);
    });

    it('finds $(…) and backticks inside double quotes, not inside single quotes', () => {
      assert.deepEqual(splitCommand('echo "$(curl x | sh)"').segments, ['echo "$(curl x | sh)"', 'curl x', 'sh']);
      assert.deepEqual(splitCommand('echo "`whoami`"').segments, ['echo "`whoami`"', 'whoami']);
      assert.deepEqual(splitCommand("echo '$(rm -rf /)' '`id`'").segments, ["echo '$(rm -rf /)' '`id`'"]);
    });

    it('splits chains inside a substitution and recurses into nested substitutions', () => {
      const result = splitCommand('echo $(a; b $(c && d))');
      assert.deepEqual(result.segments, ['echo $(a; b $(c && d))', 'a', 'b $(c && d)', 'c', 'd']);
      assert.deepEqual(result.operators, [';', '&&']);
    });

    it('treats a ) inside quotes in a substitution as text', () => {
      assert.deepEqual(splitCommand('echo $(echo ")"; id)').segments, ['echo $(echo ")"; id)', 'echo ")"', 'id']);
    });

    it('read as bash, extracts process substitutions <(…) and >(…)', () => {
      const result = splitCommand('diff <(ls a) >(tee log)', 'bash');
      assert.deepEqual(result.segments, ['diff <(ls a) >(tee log)', 'ls a', 'tee log']);
      assert.deepEqual(result.redirections, []);
    });

    it('read as dash, <(…) is a syntax error whose commands are still listed', () => {
      const result = splitCommand('diff <(ls a) x');
      assert.ok(result.errors.some((error) => /has no target/.test(error)));
      assert.ok(result.segments.includes('ls a'));
    });

    it("reads $'…' as dash does: a $ then a single-quoted string (bash: one ANSI-C string)", () => {
      const command = "echo x$'\\'; touch m0; #'";
      assert.deepEqual(splitCommand(command).segments, ["echo x$'\\'", 'touch m0']);
      assert.deepEqual(splitCommand(command, 'bash').segments, [command]);
      const [word] = parseCommandLine("echo $'a b'").segments[0].words.slice(1);
      assert.deepEqual([word.value, word.expands], ['$a b', false]);
    });

    it('finds substitutions inside arithmetic $((…)) without reading it as a subshell', () => {
      assert.deepEqual(splitCommand('echo $((1 + $(id -u) * (2)))').segments, ['echo $((1 + $(id -u) * (2)))', 'id -u']);
      assert.deepEqual(splitCommand('echo $(( `id -u` ))').segments, ['echo $(( `id -u` ))', 'id -u']);
    });

    it('drops backslash-newline everywhere outside single quotes, operators and $( included', () => {
      assert.deepEqual(splitCommand('ec\\\nho a &\\\n& l\\\ns $\\\n(id)').segments, ['ec\\\nho a', 'l\\\ns $\\\n(id)', 'id']);
      assert.deepEqual(splitCommand('ec\\\nho a &\\\n& ls').operators, ['&&']);
      assert.deepEqual(parseCommandLine("echo 'a\\\nb'").segments[0].words[1].value, 'a\\\nb');
    });

    it('finds command substitutions inside ${…} defaults', () => {
      assert.deepEqual(splitCommand('echo ${x:-$(id)}').segments, ['echo ${x:-$(id)}', 'id']);
    });

    it('scans unquoted here-documents for substitutions but not quoted ones', () => {
      const open = splitCommand('cat <<EOF\nhello $(whoami) `id`\nEOF\nls');
      assert.deepEqual(open.segments, ['cat <<EOF', 'whoami', 'id', 'ls']);
      const quoted = splitCommand("cat <<'EOF'\n$(rm -rf /)\nEOF\nls");
      assert.deepEqual(quoted.segments, ["cat <<'EOF'", 'ls']);
      const tabs = splitCommand('cat <<-END\n\t$(id)\n\tEND\npwd');
      assert.deepEqual(tabs.segments, ['cat <<-END', 'id', 'pwd']);
    });

    it("marks words that begin with an expansion (read as bash, so $'…' is one)", () => {
      const [segment] = parseCommandLine('cmd plain "$X" a$Y * {-a,b} $\'\\x2d\' "-x"', 'bash').segments;
      const flags = segment.words.map((word) => [word.raw, word.expands, word.leadingExpansion]);
      assert.deepEqual(flags, [
        ['cmd', false, false],
        ['plain', false, false],
        ['"$X"', true, true],
        ['a$Y', true, false],
        ['*', true, true],
        ['{-a,b}', true, true],
        ["$'\\x2d'", true, true],
        ['"-x"', false, false],
      ]);
    });

    it('does not treat [ (test), { } or find {} as expansions', () => {
      const [segment] = parseCommandLine('[ -f x ] { } {}').segments;
      assert.ok(segment.words.every((word) => !word.expands));
    });
  });

  describe('redirections', () => {
    it('notes every kind of redirection, with its fd (read as bash, which has &>, &>> and <<<)', () => {
      const result = parseCommandLine('cmd > a >> b < c 2> d &> e &>> f 2>&1 >&2 <<< "s" >| g', 'bash');
      assert.deepEqual(
        result.redirections.map((r) => [r.fd, r.operator, r.target]),
        [
          ['', '>', 'a'],
          ['', '>>', 'b'],
          ['', '<', 'c'],
          ['2', '>', 'd'],
          ['', '&>', 'e'],
          ['', '&>>', 'f'],
          ['2', '>&', '1'],
          ['', '>&', '2'],
          ['', '<<<', 's'],
          ['', '>|', 'g'],
        ],
      );
      assert.deepEqual(
        result.segments.map((s) => s.words.map((w) => w.value)),
        [['cmd']],
      );
    });

    it('keeps redirection texts as written', () => {
      assert.deepEqual(splitCommand('ls 2>/dev/null > "out file"').redirections, ['2>/dev/null', '> "out file"']);
    });

    it('a digit separated by a space is an argument, not an fd', () => {
      const result = parseCommandLine('echo 2 > f');
      assert.deepEqual(
        result.segments[0].words.map((w) => w.value),
        ['echo', '2'],
      );
      assert.equal(result.redirections[0].fd, '');
    });

    it('a quoted > is not a redirection', () => {
      assert.deepEqual(splitCommand('echo ">" \'>>\' \\>').redirections, []);
    });

    it('collects redirections inside substitutions too', () => {
      assert.deepEqual(splitCommand('echo $(cat a > b)').redirections, ['> b']);
    });
  });

  describe('errors', () => {
    const broken: Array<[string, RegExp]> = [
      ['echo "abc', /unterminated double quote/],
      ["echo 'abc", /unterminated single quote/],
      ['echo $(ls', /unterminated substitution/],
      ['echo `ls', /unterminated backquote/],
      ['ls >', /has no target/],
      ['ls > ; pwd', /has no target/],
      ['cat <<EOF\nbody', /unterminated here-document/],
      ['echo )', /unexpected "\)"/],
      ['(ls', /unbalanced/],
      ['ls ; ; pwd', /";" has no command before it/],
      ['ls\n&& pwd', /"&&" has no command before it/],
      ['ls ;; pwd', /outside a case statement/],
    ];
    for (const [command, pattern] of broken) {
      it(`reports ${JSON.stringify(command)}`, () => {
        const { errors } = splitCommand(command);
        assert.ok(
          errors.some((error) => pattern.test(error)),
          JSON.stringify(errors),
        );
      });
    }

    it('still finds the segments of an unterminated substitution', () => {
      assert.ok(splitCommand('echo $(rm -rf /').segments.includes('rm -rf /'));
    });

    it('stops at a nesting limit instead of overflowing the stack', () => {
      const deep = 'echo ' + '$('.repeat(500) + 'id' + ')'.repeat(500);
      const { errors } = splitCommand(deep);
      assert.ok(errors.some((error) => /nested too deeply/.test(error)));
    });

    it('stays linear on pathological input', () => {
      const started = performance.now();
      splitCommand('echo ' + '['.repeat(200_000));
      splitCommand('echo ' + '"'.repeat(200_001));
      splitCommand('x'.repeat(200_000) + ';'.repeat(1000));
      assert.ok(performance.now() - started < 2_000, 'parsing took too long');
    });

    it('a valid command has no errors', () => {
      assert.deepEqual(splitCommand('git log --oneline | head -n 5 > /dev/null 2>&1').errors, []);
    });
  });
});
