// The floor's upstream: a provider that does no work. It drains each request body without
// parsing it and answers one fixed Chat Completions JSON (STATIC_REPLY: the bench passes the
// real mock's answer to the same request, so every proxy handles the same response). The real
// mock (apps/mock-provider) parses and validates each 26 KiB request with zod, ~1 ms of CPU, so
// next to it a proxy's own cost looks smaller than it is. Plain JavaScript run by plain `node`.
//
// GET /__static/last answers how many requests came and the byte length of the last body: the
// bench's check that a request through a proxy reached it, with the body it expected.
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 0);
const reply = Buffer.from(
  process.env.STATIC_REPLY ??
    JSON.stringify({
      id: 'chatcmpl-static',
      object: 'chat.completion',
      created: 0,
      model: 'static',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'ok', refusal: null },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    }),
);
const replyHeaders = {
  'content-type': 'application/json',
  'content-length': String(reply.length),
};
let requests = 0;
let lastBytes = 0;

const server = createServer((request, response) => {
  if (request.method === 'GET') {
    const text =
      request.url === '/__static/last' ? JSON.stringify({ requests, lastBytes }) : '{"ok":true}';
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(text);
    return;
  }
  let bytes = 0;
  request.on('data', (chunk) => {
    bytes += chunk.length;
  });
  request.on('end', () => {
    requests++;
    lastBytes = bytes;
    response.writeHead(200, replyHeaders);
    response.end(reply);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `static mock on ${typeof address === 'object' && address ? address.port : port}\n`,
  );
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    server.close();
    process.exit(0);
  });
}
