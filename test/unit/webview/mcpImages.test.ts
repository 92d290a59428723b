import assert from 'node:assert/strict';
import { mcpImageLines } from '../../../webview/mcpImages';

// The images of an MCP call in its details: from the call's mcp_result audit, never the bytes,
// fields a crafted trace got wrong left out.

const SHA = 'a'.repeat(64);

describe('webview: the images of an MCP call', () => {
  it('one line per image: type, size, whether it reached the model (or why not), a short hash', () => {
    const audits = [
      { kind: 'mcp_result', seq: 1, callId: 'c0', raw: '{}' },
      {
        kind: 'mcp_result',
        seq: 2,
        callId: 'c1',
        raw: '{}',
        images: [
          { mimeType: 'image/png', bytes: 1234, sha256: SHA, sent: true },
          { mimeType: 'image/svg+xml', bytes: 80, sent: false, reason: 'only PNG, JPEG, GIF and WebP images are sent to the model' },
        ],
      },
    ];
    assert.deepEqual(mcpImageLines(audits, 'c1'), [
      'image/png, 1,234 bytes, sent to the model · sha256 aaaaaaaaaaaa…',
      'image/svg+xml, 80 bytes, not sent: only PNG, JPEG, GIF and WebP images are sent to the model',
    ]);
    assert.deepEqual(mcpImageLines(audits, 'c0'), []);
    assert.deepEqual(mcpImageLines(audits, 'nope'), []);
  });

  it('a crafted audit: wrong fields are left out, the list is bounded', () => {
    const images = [
      { mimeType: 7, bytes: 'x', sha256: '<script>', sent: 'yes' },
      'junk',
      ...Array.from({ length: 30 }, () => ({ mimeType: 'image/png', bytes: 1, sent: true })),
    ];
    const lines = mcpImageLines([{ kind: 'mcp_result', seq: 1, callId: 'c', images }], 'c');
    assert.equal(lines[0], 'unknown type, unknown size, not sent');
    assert.equal(lines.length, 21);
    assert.equal(lines.at(-1), '… and 11 more');
  });
});
