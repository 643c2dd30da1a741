import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { proxyServer, startHTTPServer } from 'mcp-proxy';

/**
 * mcp-proxy (npm) in front of a Streamable HTTP server, as its own process for `pnpm bench mcp`.
 * Its CLI only spawns stdio servers, so this is its library: one upstream SDK `Client` on
 * Streamable HTTP, and `startHTTPServer` making a `Server` wired by `proxyServer` to that client
 * for each downstream session (one shared upstream connection: mcp-proxy's own design). The
 * resumability event store is off (`eventStore: false`), as Toolgate keeps none: mcp-proxy does
 * less per message than its default, never more. Environment: UPSTREAM_URL, PORT.
 */
const upstreamUrl = process.env.UPSTREAM_URL;
const port = Number(process.env.PORT);
if (!upstreamUrl || !Number.isInteger(port)) {
  throw new Error('mcp-proxy-server: UPSTREAM_URL and PORT are required');
}

const upstream = new Client({ name: 'mcp-proxy', version: '6.6.0' });
await upstream.connect(new StreamableHTTPClientTransport(new URL(upstreamUrl)));
const capabilities = upstream.getServerCapabilities() ?? {};
const serverInfo = upstream.getServerVersion() ?? { name: 'mcp-proxy', version: '0' };

const { close } = await startHTTPServer({
  host: '127.0.0.1',
  port,
  streamEndpoint: '/mcp',
  sseEndpoint: null,
  eventStore: false,
  createServer: async () => {
    const server = new Server(serverInfo, { capabilities });
    await proxyServer({ client: upstream, server, serverCapabilities: capabilities });
    return server;
  },
});
console.log(`mcp-proxy listening on http://127.0.0.1:${port}/mcp → ${upstreamUrl}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void close().finally(() => process.exit(0));
  });
}
