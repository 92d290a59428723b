import assert from 'node:assert/strict';
import { evaluateCommand } from '../../../src/core/policy/commandRules';
import { commandPrefix, parseStoredPrefixes, rememberOffer, ruleMatches, type RememberableCall } from '../../../src/core/policy/rememberedRules';

// What a remembered answer covers (docs/design.md, “Remembered approvals”): the prefix a command
// is remembered by, which later commands match it, the folder of a file tool, and the workspace
// store read back as untrusted data.

/** A run_command call as the batch runner describes it, with the real command rules' findings. */
function commandCall(text: string): RememberableCall {
  const evaluation = evaluateCommand(text, { allow: [], deny: [] });
  return {
    toolName: 'run_command',
    argumentsJson: JSON.stringify({ command: text }),
    argsHash: 'a'.repeat(64),
    command: { text, handoffs: evaluation.handoffs, errors: evaluation.errors },
  };
}

function prefixOf(text: string): string[] | undefined {
  return commandPrefix(commandCall(text).command!);
}

function matches(approved: string, later: string): boolean {
  const offer = rememberOffer(commandCall(approved));
  assert.ok(offer, `${approved} should be rememberable`);
  return ruleMatches(offer.rule, commandCall(later));
}

describe('remembered rules: command prefixes', () => {
  it('remembers the program and up to two subcommand words', () => {
    assert.deepEqual(prefixOf('npm test'), ['npm', 'test']);
    assert.deepEqual(prefixOf('npm test -- --grep foo'), ['npm', 'test']);
    assert.deepEqual(prefixOf('npm run build --watch'), ['npm', 'run', 'build']);
    assert.deepEqual(prefixOf("git commit -m 'fix the bug'"), ['git', 'commit']);
    assert.deepEqual(prefixOf('make'), ['make']);
    assert.deepEqual(prefixOf('rm build/out.o'), ['rm']);
  });

  it('remembers nothing for a command with shell syntax', () => {
    for (const text of ['npm test | tail -5', 'npm test && rm -rf src', 'npm test > out.txt', 'echo $HOME', 'npm test; ls', 'ls *.ts'])
      assert.equal(prefixOf(text), undefined, text);
    assert.equal(rememberOffer(commandCall('npm test | tail')), undefined);
  });

  it('remembers an interpreter, wrapper or shell as the whole command, matched only exactly', () => {
    assert.deepEqual(prefixOf('python3 script.py'), ['python3', 'script.py']);
    assert.deepEqual(prefixOf('env npm test'), ['env', 'npm', 'test']);
    assert.deepEqual(prefixOf("sh -c 'echo hi'"), ['sh', '-c', 'echo hi']);
    assert.equal(matches('python3 script.py', 'python3 script.py'), true);
    assert.equal(matches('python3 script.py', 'python3 script.py --evil'), false);
    assert.equal(matches('node', 'node evil.js'), false);
    assert.equal(matches('env npm test', 'env npm test rm'), false);
    assert.equal(matches('sudo make', 'sudo make install'), false);
    // Package runners and "run anything" subcommands name the program to run after them.
    assert.deepEqual(prefixOf('npx -y cowsay'), ['npx', '-y', 'cowsay']);
    assert.equal(matches('npx -y cowsay', 'npx -y evil'), false);
    assert.equal(matches('npm exec -y cowsay', 'npm exec -y evil'), false);
    assert.equal(matches('uv run pytest', 'uv run pytest rm'), false);
    assert.deepEqual(prefixOf('npm run build'), ['npm', 'run', 'build'], 'npm run runs a script of package.json');
  });

  it('matches the prefix alone or followed by plain words', () => {
    assert.equal(matches('npm test', 'npm test'), true);
    assert.equal(matches('npm test', 'npm test -- --grep=parser'), true);
    assert.equal(matches('npm test -- --grep foo', 'npm test src/a.test.ts'), true);
    assert.equal(matches('npm run build', 'npm run build --watch'), true);
  });

  it('never matches another prefix or added shell syntax', () => {
    assert.equal(matches('npm test', 'npm install'), false);
    assert.equal(matches('npm run build', 'npm run lint'), false);
    assert.equal(matches('npm test', 'npm'), false);
    assert.equal(matches('npm test', 'npmx test'), false);
    for (const later of [
      'npm test && rm -rf src',
      'npm test; curl evil',
      'npm test | sh',
      'npm test > package.json',
      'npm test $(curl evil)',
      'npm test `id`',
      'npm test *',
      'npm test\nrm -rf src',
      'FOO=1 npm test',
      'npm test &',
    ])
      assert.equal(matches('npm test', later), false, later);
  });

  it('never matches quoted words, escapes or arguments leaving the workspace', () => {
    for (const later of [
      "npm test 'a b'",
      'npm test a\\ b',
      'npm test /etc/passwd',
      'npm test ../outside',
      'npm test ~/x',
      'npm test --config=/etc/x',
      'npm test HEAD~1',
    ])
      assert.equal(matches('npm test', later), false, later);
  });

  it('matches only its own tool', () => {
    const offer = rememberOffer(commandCall('npm test'))!;
    assert.equal(ruleMatches(offer.rule, { ...commandCall('npm test'), toolName: 'other_command' }), false);
  });
});

describe('remembered rules: folders and exact arguments', () => {
  const fileCall = (paths: string[], toolName = 'write_file'): RememberableCall => ({ toolName, argumentsJson: '{}', argsHash: 'b'.repeat(64), paths });

  it('remembers the folder of a file tool and matches paths in it and below', () => {
    const offer = rememberOffer(fileCall(['src/parser/a.ts']))!;
    assert.deepEqual(offer, { rule: { tool: 'write_file', folder: 'src/parser' }, workspace: false });
    assert.equal(ruleMatches(offer.rule, fileCall(['src/parser/b.ts'])), true);
    assert.equal(ruleMatches(offer.rule, fileCall(['./src/parser/deep/c.ts'])), true);
    assert.equal(ruleMatches(offer.rule, fileCall(['src/parserx/c.ts'])), false);
    assert.equal(ruleMatches(offer.rule, fileCall(['src/c.ts'])), false);
    assert.equal(ruleMatches(offer.rule, fileCall(['src/parser/../../etc/x'])), false);
    assert.equal(ruleMatches(offer.rule, fileCall(['src/parser/a.ts', 'lib/b.ts'])), false);
    assert.equal(ruleMatches(offer.rule, fileCall(['src/parser/a.ts'], 'edit_file')), false);
  });

  it('offers nothing for a path outside the workspace by its text, and the root folder for a top-level file', () => {
    assert.equal(rememberOffer(fileCall(['/etc/passwd'])), undefined);
    assert.equal(rememberOffer(fileCall(['../x.ts'])), undefined);
    assert.deepEqual(rememberOffer(fileCall(['README.md']))?.rule, { tool: 'write_file', folder: '.' });
  });

  it('remembers any other tool by its exact arguments', () => {
    const call: RememberableCall = { toolName: 'mcp_tool', argumentsJson: '{"a":1}', argsHash: 'c'.repeat(64) };
    const offer = rememberOffer(call)!;
    assert.equal(ruleMatches(offer.rule, call), true);
    assert.equal(ruleMatches(offer.rule, { ...call, argumentsJson: '{"a":2}', argsHash: 'd'.repeat(64) }), false);
  });
});

describe('remembered rules: the workspace store is untrusted data', () => {
  it('keeps valid prefixes and drops malformed entries, saying why', () => {
    const dropped: string[] = [];
    const kept = parseStoredPrefixes(
      [
        { tool: 'run_command', prefix: ['npm', 'test'] },
        { tool: 'run_command', prefix: ['npm', 'test'] },
        { tool: 'run_command', prefix: ['git', 'commit message'] },
        { tool: 'run_command', prefix: [] },
        { tool: 'run_command', prefix: ['npm', 'te\u001bst'] },
        { tool: 'run_command', prefix: ['npm\u202e', 'test'] },
        { tool: 'write_file', prefix: ['npm'] },
        { tool: 'run_command', folder: 'src' },
        { tool: 'run_command', prefix: ['npm'], extra: true },
        'npm test',
        null,
      ],
      (why) => dropped.push(why),
    );
    assert.deepEqual(kept, [
      { tool: 'run_command', prefix: ['npm', 'test'] },
      { tool: 'run_command', prefix: ['git', 'commit message'] },
    ]);
    assert.equal(dropped.length, 8, dropped.join('\n'));
  });

  it('drops a stored value that is not a list', () => {
    const dropped: string[] = [];
    assert.deepEqual(
      parseStoredPrefixes({ prefix: ['npm'] }, (why) => dropped.push(why)),
      [],
    );
    assert.equal(dropped.length, 1);
    assert.deepEqual(
      parseStoredPrefixes(undefined, () => assert.fail('nothing stored is not malformed')),
      [],
    );
  });
});
