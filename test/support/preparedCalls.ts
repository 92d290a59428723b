import assert from 'node:assert/strict';
import type { PreparedCall } from '../../src/core/tools/toolPipeline';

/** `call`, after checking that its disposition is `disposition`, typed as that kind of prepared call. */
export function expectDisposition<D extends PreparedCall['disposition']>(call: PreparedCall, disposition: D): Extract<PreparedCall, { disposition: D }> {
  assert.equal(call.disposition, disposition, `call ${call.call.id} is ${call.disposition}, expected ${disposition}`);
  return call as Extract<PreparedCall, { disposition: D }>;
}
