import assert from 'node:assert/strict';
import { policyDeniedMessage, userDeniedMessage } from '../../../src/core/policy/policyMessages';

describe('policy messages for the model', () => {
  it('a policy deny says it was denied by policy, with the reason', () => {
    const message = policyDeniedMessage('run_command', 'segment "sudo ls" is denied');
    assert.match(message, /^Error: the call to "run_command" was denied by policy \(segment "sudo ls" is denied\)/);
    assert.match(message, /did not run/);
  });

  it('a user deny says the user denied it and carries the feedback', () => {
    assert.match(
      userDeniedMessage('write_file', ' write to tmp/ instead '),
      /The user denied the call to "write_file"\..*User feedback: write to tmp\/ instead$/,
    );
    const bare = userDeniedMessage('write_file');
    assert.match(bare, /The user denied the call to "write_file"/);
    assert.doesNotMatch(bare, /feedback/i);
    assert.equal(userDeniedMessage('write_file', '   '), bare);
  });
});
