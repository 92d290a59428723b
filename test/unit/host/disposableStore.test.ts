import assert from 'node:assert/strict';
import { DisposableStore } from '../../../src/panel/disposableStore';

describe("the panel's disposable store", () => {
  it('undoes everything once, in the order it was added, even when disposing calls back into it', () => {
    const store = new DisposableStore();
    const done: string[] = [];
    store.add(
      () => done.push('batcher'),
      { dispose: () => (done.push('panel'), store.dispose()) },
      () => done.push('listener'),
    );
    assert.equal(store.isDisposed, false);
    store.dispose();
    store.dispose();
    assert.deepEqual(done, ['batcher', 'panel', 'listener']);
    assert.equal(store.isDisposed, true);
  });

  it('runs a cleanup added after disposal at once', () => {
    const store = new DisposableStore();
    store.dispose();
    let ran = false;
    store.add(() => (ran = true));
    assert.equal(ran, true);
  });
});
