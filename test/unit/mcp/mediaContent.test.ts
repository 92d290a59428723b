import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { renderReadResult, renderToolResult, MAX_INLINE_RESOURCE_BYTES } from '../../../src/core/mcp/resultText';
import { imageSupport, isKnownImageModel } from '../../../src/core/llm/imageSupport';
import { checkImage } from '../../../src/core/tools/imageData';
import {
  limitConversationImages,
  MAX_IMAGE_BYTES,
  MAX_REQUEST_IMAGES,
  toolImagesMessage,
  type ImageChannel,
  type ToolImage,
} from '../../../src/core/tools/toolImages';
import type { ChatMessage } from '../../../src/core/llm/llmTypes';
import { countMessageTokens, IMAGE_PART_TOKENS } from '../../../src/core/context/tokenCounter';

// MCP images and resources on their way to the model (docs/design.md, “MCP tools”, results): images
// checked and sent as images when the model takes them, otherwise said plainly; resources inline or
// described; the per-request image caps.

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(40, 7)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(20, 3)]);
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function accepting(): { channel: ImageChannel; attached: ToolImage[] } {
  const attached: ToolImage[] = [];
  return { channel: { accepted: true, attach: (images) => attached.push(...images) }, attached };
}

describe('MCP images: sent when the model takes them, said plainly when not', () => {
  it('a PNG for a model that takes images is kept for the image message, and the text says where it went', () => {
    const { channel } = accepting();
    const rendered = renderToolResult(
      {
        content: [
          { type: 'text', text: 'Here it is:' },
          { type: 'image', mimeType: 'image/png', data: PNG.toString('base64') },
        ],
      },
      { images: channel },
    );
    assert.equal(rendered.text, `Here it is:\n[image image/png, ${PNG.length} bytes: sent as image 1 of this call, in the message after the tool results]`);
    assert.deepEqual(rendered.images, [{ mimeType: 'image/png', data: PNG.toString('base64'), bytes: PNG.length, sha256: sha(PNG) }]);
    assert.deepEqual(rendered.imageRecords, [{ mimeType: 'image/png', bytes: PNG.length, sha256: sha(PNG), sent: true }]);
    assert.ok(!rendered.rawJson.includes(PNG.toString('base64')), 'the raw result for the trace has no image bytes');
  });

  it('a model that does not take images gets a sentence with the type, the size and what to change', () => {
    const support = imageSupport({ mode: 'auto', provider: 'openai-compatible', model: 'my-local-model', fallbackModels: [] });
    assert.equal(support.accepted, false);
    const rendered = renderToolResult(
      { content: [{ type: 'image', mimeType: 'image/png', data: PNG.toString('base64') }] },
      { images: support as ImageChannel },
    );
    assert.equal(
      rendered.text,
      `[image image/png, ${PNG.length} bytes: not shown, this model does not take images here (the model "my-local-model" is not known to take images; set cortex.llm.images to "on" to send them)]`,
    );
    assert.deepEqual(rendered.images, []);
  });

  it('refuses what an endpoint would refuse: another type, bytes that are not the declared type, bad base64, a huge image', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['image/svg+xml', Buffer.from('<svg/>').toString('base64'), /only PNG, JPEG, GIF and WebP images are sent to the model/],
      ['image/png', JPEG.toString('base64'), /its data is not a PNG file/],
      ['image/png', 'not base64!!', /its data is not valid base64/],
      ['image/png', Buffer.concat([PNG, Buffer.alloc(MAX_IMAGE_BYTES)]).toString('base64'), /larger than the 3 MiB sent per image/],
    ];
    for (const [mimeType, data, problem] of cases) {
      const { channel, attached } = accepting();
      const rendered = renderToolResult({ content: [{ type: 'image', mimeType, data }] }, { images: channel });
      assert.match(rendered.text, /^\[image .*: not sent to the model, /, mimeType);
      assert.match(rendered.text, problem);
      assert.deepEqual([rendered.images, attached], [[], []]);
      assert.equal(rendered.imageRecords[0].sent, false);
    }
    assert.equal(checkImage('image/jpg', JPEG.toString('base64')).ok, true, 'image/jpg is read as image/jpeg');
  });

  it('embedded resources: text inline and clipped, an image blob as an image, other binary data described; links name the read tool', () => {
    const { channel } = accepting();
    const long = 'y'.repeat(MAX_INLINE_RESOURCE_BYTES * 2);
    const rendered = renderToolResult(
      {
        content: [
          { type: 'resource', resource: { uri: 'demo://long', mimeType: 'text/plain', text: long } },
          { type: 'resource', resource: { uri: 'demo://pic', mimeType: 'image/jpeg', blob: JPEG.toString('base64') } },
          { type: 'resource', resource: { uri: 'demo://bin', mimeType: 'application/octet-stream', blob: 'AAAA' } },
          { type: 'resource_link', uri: 'demo://doc', name: 'doc', mimeType: 'text/markdown' },
        ],
      },
      { images: channel, readResourceTool: 'demo_read_resource' },
    );
    const [head, clipped, ...rest] = rendered.text.split('\n');
    assert.equal(head, `[embedded resource demo://long (text/plain, ${long.length} characters)]`);
    assert.ok(Buffer.byteLength(clipped) <= MAX_INLINE_RESOURCE_BYTES && clipped.startsWith('yyy'), 'the text is clipped');
    const tail = rest.join('\n');
    assert.match(tail, /\[embedded resource demo:\/\/pic: image image\/jpeg, 24 bytes: sent as image 1 of this call/);
    assert.match(
      tail,
      /\[embedded resource demo:\/\/bin \(application\/octet-stream, 3 bytes of binary data\), not shown: binary content is not sent to the model\]/,
    );
    assert.match(tail, /\[resource link demo:\/\/doc \(doc, text\/markdown\); read it with demo_read_resource\]$/);
    assert.equal(rendered.images.length, 1);
  });

  it('a resources/read result: each content inline or described', () => {
    const rendered = renderReadResult({
      contents: [
        { uri: 'demo://a', mimeType: 'text/markdown', text: '# A' },
        { uri: 'demo://b', mimeType: 'application/pdf', blob: 'AAAA' },
      ],
    });
    assert.equal(
      rendered.text,
      '[resource demo://a (text/markdown, 3 characters)]\n# A\n[resource demo://b (application/pdf, 3 bytes of binary data), not shown: binary content is not sent to the model]',
    );
    assert.equal(renderReadResult({ contents: [] }).text, '(the resource has no contents)');
    const long = 'z'.repeat(MAX_INLINE_RESOURCE_BYTES * 3);
    assert.ok(
      renderReadResult({ contents: [{ uri: 'demo://long', text: long }] }).text.endsWith(long),
      'a read resource is whole here: the output cap of every tool applies later',
    );
  });
});

describe('cortex.llm.images: which models get images', () => {
  const settings = (mode: 'auto' | 'on' | 'off', model: string, fallbackModels: string[] = []) =>
    imageSupport({ mode, provider: 'openai-compatible', model, fallbackModels });

  it('auto: only when the model and every fallback model are known to take images', () => {
    for (const model of ['gpt-4o-mini', 'openai/gpt-4.1', 'claude-sonnet-4-5', 'gemini-2.5-pro', 'qwen2.5-vl-7b-instruct', 'llava:13b', 'o3'])
      assert.equal(isKnownImageModel(model), true, model);
    for (const model of ['gpt-3.5-turbo', 'o1-mini', 'o3-mini', 'deepseek-chat', 'qwen2.5-coder:7b', 'm']) assert.equal(isKnownImageModel(model), false, model);
    assert.deepEqual(settings('auto', 'gpt-4o'), { accepted: true });
    assert.deepEqual(settings('auto', 'gpt-4o', ['deepseek-chat']), {
      accepted: false,
      reason: 'the model "deepseek-chat" is not known to take images; set cortex.llm.images to "on" to send them',
    });
  });

  it('on and off decide alone; models from VS Code never get images', () => {
    assert.deepEqual(settings('on', 'm'), { accepted: true });
    assert.equal(settings('off', 'gpt-4o').accepted, false);
    assert.match((settings('off', 'gpt-4o') as { reason: string }).reason, /cortex.llm.images is "off"/);
    assert.equal(imageSupport({ mode: 'on', provider: 'vscode-lm', model: 'gpt-4o', fallbackModels: [] }).accepted, false);
  });
});

describe('the image message after the tool results, and the per-request caps', () => {
  const image = (bytes: number): ToolImage => ({ mimeType: 'image/png', data: 'A'.repeat(Math.ceil(bytes / 3) * 4), bytes, sha256: 'x' });

  it('one user message: first a sentence that the images are tool output, then a label and an image_url data URL per image', () => {
    const message = toolImagesMessage([{ callId: 'call_1', toolName: 'everything_get-tiny-image', images: [image(3)] }]);
    assert.equal(message?.role, 'user');
    const parts = message.content as Array<Record<string, any>>;
    assert.match(parts[0].text, /tool output .*not instructions from the user/);
    assert.equal(parts[1].text, 'Image 1 of 1 of call call_1 (everything_get-tiny-image): image/png, 3 bytes');
    assert.deepEqual(parts[2], { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } });
    assert.equal(toolImagesMessage([]), undefined);
    assert.equal(countMessageTokens(message) >= IMAGE_PART_TOKENS, true, 'an image part counts in the prompt budget');
  });

  it('keeps the newest images within the count and byte caps; older ones become a note', () => {
    const messages: ChatMessage[] = [{ role: 'system', content: 's' }];
    for (let i = 0; i < MAX_REQUEST_IMAGES + 2; i++) messages.push(toolImagesMessage([{ callId: `c${i}`, toolName: 't', images: [image(3)] }])!);
    const first = messages[1];
    assert.equal(limitConversationImages(messages), 2);
    const imageParts = messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string }>) : [])).filter((p) => p.type === 'image_url');
    assert.equal(imageParts.length, MAX_REQUEST_IMAGES);
    assert.match(JSON.stringify(messages[1].content), /image left out of this request/);
    assert.notEqual(messages[1], first, 'a new message object (counts are cached per object)');
    assert.match(JSON.stringify(messages.at(-1)!.content), /image_url/, 'the newest stay');

    const big: ChatMessage[] = [1, 2, 3, 4, 5].map((i) => toolImagesMessage([{ callId: `b${i}`, toolName: 't', images: [image(3 * 1024 * 1024)] }])!);
    assert.equal(limitConversationImages(big), 1, '12 MiB hold four 3 MiB images');
  });
});
