import assert from 'node:assert/strict';
import { codeHandoffs } from '../../../src/core/policy/codeHandoff';
import { parseCommandLine } from '../../../src/core/policy/commandSegments';

const handoffs = (command: string) => codeHandoffs(parseCommandLine(command).segments);

describe('codeHandoffs', () => {
  const named: Array<[string, string]> = [
    [`awk 'BEGIN{system("rm -rf /")}'`, 'hands code to awk: deny rules cannot see inside it'],
    [`python3 -c 'import os; os.system("x")'`, 'hands code to python3: deny rules cannot see inside it'],
    [`node -e 'require("child_process").execSync("x")'`, 'hands code to node: deny rules cannot see inside it'],
    [`/usr/bin/perl -e 'system "x"'`, 'hands code to perl: deny rules cannot see inside it'],
    [`find . -name x -exec rm {} \\;`, 'hands code to find -exec: deny rules cannot see inside it'],
    [`find . -execdir sh -c 'x' \\;`, 'hands code to find -execdir: deny rules cannot see inside it'],
    [`ls | xargs rm`, 'hands code to xargs: deny rules cannot see inside it'],
    [`env -S 'rm -rf /'`, 'hands code to env -S: deny rules cannot see inside it'],
    [`sh script.sh`, 'hands code to sh: deny rules cannot see inside it'],
    [`bash -c "$CMD"`, 'hands code to bash: deny rules cannot see inside it'],
    [`eval "$x"`, 'hands code to eval: deny rules cannot see inside it'],
    [`. ./env.sh`, 'hands code to .: deny rules cannot see inside it'],
    [`$RUNNER test`, 'runs a command named at run time ($RUNNER): deny rules cannot see which'],
    [`"$(which rm)" -rf x`, 'runs a command named at run time ($(which rm)): deny rules cannot see which'],
    [`nohup timeout 5 ruby -e x`, 'hands code to ruby: deny rules cannot see inside it'],
    [`ls && (cd src; python3 build.py)`, 'hands code to python3: deny rules cannot see inside it'],
    [`echo "$(awk 1 file)"`, 'hands code to awk: deny rules cannot see inside it'],
    [`sh -c 'awk 1 x'`, 'hands code to awk: deny rules cannot see inside it'],
  ];
  for (const [command, note] of named) {
    it(`names the hand-off in ${JSON.stringify(command)}`, () => {
      assert.ok(handoffs(command).includes(note), JSON.stringify(handoffs(command)));
    });
  }

  it('names nothing when the deny rules saw everything that runs', () => {
    for (const command of ['ls -la', 'git status && npm test', "sh -c 'ls; pwd'", 'eval ls', 'env FOO=1 make', 'find . -name "*.ts"', 'grep -r awk src']) {
      assert.deepEqual(handoffs(command), [], command);
    }
  });

  it('names each program once', () => {
    assert.deepEqual(handoffs('awk 1 a; awk 2 b | awk 3 c'), ['hands code to awk: deny rules cannot see inside it']);
  });
});
