import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempWorkspace } from '../support/agentHarness';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { runCliInProcess } from '../support/inProcessCli';
import { useScriptedServer } from '../support/useScriptedServer';

// A gateway that drops the request's tools (as some provider transforms do), played by a real
// local HTTP proxy in front of the scripted endpoint: the model, seeing no tools, says it cannot
// read files; the run says once that the endpoint may not support tool calling.

const cli = (argv: string[]) => runCliInProcess(argv);

/** A proxy to `target` that removes `tools` and `tool_choice` from every JSON body it forwards. */
async function toolDroppingProxy(target: string): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (body.length > 0) {
        const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
        delete parsed.tools;
        delete parsed.tool_choice;
        body = Buffer.from(JSON.stringify(parsed));
      }
      const headers = { ...req.headers, host: upstream.host, 'content-length': String(body.length) };
      const forward = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('cortex CLI: an endpoint that drops the tools', function () {
  this.timeout(30_000);
  const server = useScriptedServer();

  const script = () =>
    server().setHandler(
      route({
        planner: json({ title: 't', steps: ['Read a.txt', 'Read b.txt'], dependencies: { '1': [0] } }),
        // The model reads when it is given tools, and says it cannot when it is not.
        executor: (req) =>
          Array.isArray(req.body.tools)
            ? toolMessages(req).length
              ? message('It says A.')
              : toolCalls(call('read_file', { path: 'a.txt' }))
            : message("I can't access files on your machine, but a.txt is probably a text file."),
        aggregator: message('Done.'),
      }),
    );

  it('says once, naming the model and the endpoint; says nothing when the tools reach the model', async () => {
    const workspace = tempWorkspace();
    writeFileSync(join(workspace, 'a.txt'), 'A');
    script();
    const proxy = await toolDroppingProxy(server().baseUrl);
    try {
      const dropped = await cli(['run', '--workspace', workspace, '--base-url', proxy.baseUrl, '--model', 'm', 'read the files']);
      const notices = dropped.stderr.split('\n').filter((line) => line.includes('may not support tool calling'));
      assert.equal(notices.length, 1, dropped.stderr);
      assert.match(
        notices[0],
        new RegExp(
          `Model m at ${proxy.baseUrl.replace(/[.]/g, '\\.')} answered step s\\d+ without calling any of the \\d+ tools it was offered, in words of a model that has none`,
        ),
      );
    } finally {
      await proxy.close();
    }
    const direct = await cli(['run', '--workspace', workspace, '--base-url', server().baseUrl, '--model', 'm', 'read the files']);
    assert.equal(direct.code, 0, direct.stderr);
    assert.doesNotMatch(direct.stderr, /may not support tool calling/);
  });
});
