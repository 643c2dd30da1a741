// The floor of one Node hop: bytes in, bytes out, nothing parsed. The benchmark runs it as its
// own process (`UPSTREAM_URL`, `PORT`) so that "added latency" has a reference that no real
// gateway can beat with the same runtime and HTTP client. Plain JavaScript run by plain `node`
// (like the gateway's production build): no TypeScript loader wrapping its functions.
import { createServer } from 'node:http';
import { Pool } from 'undici';

const upstream = process.env.UPSTREAM_URL ?? 'http://127.0.0.1:8090';
const port = Number(process.env.PORT ?? 0);
const pool = new Pool(upstream, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host']);

function endToEnd(headers) {
  const kept = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}

// `.pipe`, not `stream/promises`' `pipeline`: that one makes an AbortController per call and
// aborts it when done (a DOMException with its stack), ~50 µs of every request in a profile.
const server = createServer((request, response) => {
  pool
    .request({
      method: request.method,
      path: request.url ?? '/',
      headers: endToEnd(request.headers),
      body: request,
    })
    .then(
      (upstreamResponse) => {
        response.writeHead(upstreamResponse.statusCode, endToEnd(upstreamResponse.headers));
        upstreamResponse.body.on('error', () => response.destroy());
        upstreamResponse.body.pipe(response);
      },
      () => {
        if (!response.headersSent) response.writeHead(502);
        response.end();
      },
    );
});
server.keepAliveTimeout = 30_000;
server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `bare proxy on ${typeof address === 'object' && address ? address.port : port} → ${upstream}\n`,
  );
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    server.close();
    void pool.close().then(() => process.exit(0));
  });
}
