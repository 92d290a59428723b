import assert from 'node:assert/strict';
import { parseCheckRunInput } from '../../../src/host/checkRunInput';

// cortex_checkRun's input comes from a model: only an optional run id of a sane size.
describe('cortex_checkRun input', () => {
  it('takes an optional run id', () => {
    assert.deepEqual(parseCheckRunInput({}), {});
    assert.deepEqual(parseCheckRunInput(undefined), {});
    assert.deepEqual(parseCheckRunInput({ runId: '' }), {});
    assert.deepEqual(parseCheckRunInput({ runId: ' run-1 ' }), { runId: 'run-1' });
  });

  it('refuses what is not one, with a sentence a model can act on', () => {
    assert.throws(() => parseCheckRunInput('run-1'), /must be an object such as \{"runId": "run-…"\}/);
    assert.throws(() => parseCheckRunInput([]), /must be an object/);
    assert.throws(() => parseCheckRunInput({ runId: 7 }), /runId must be the id of a Cortex run/);
    assert.throws(() => parseCheckRunInput({ runId: 'x'.repeat(201) }), /runId must be the id of a Cortex run/);
  });
});
