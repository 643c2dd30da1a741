import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy in front of the API that can be taken down and brought back on the same port. */
export interface OutageProxy {
  url: string;
  /** Closes the listener and cuts every open connection: the API is unreachable. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

/** A real network outage (connection refused, connections reset) without stopping the API. */
export async function startOutageProxy(targetUrl: string): Promise<OutageProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;

  const listen = async () => {
    const next = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    next.listen(port, '127.0.0.1');
    await once(next, 'listening');
    const address = next.address();
    port = typeof address === 'object' && address ? address.port : port;
    server = next;
  };
  const stop = async () => {
    const current = server;
    server = undefined;
    if (!current) return;
    const closed = new Promise((resolve) => current.close(resolve));
    for (const socket of sockets) socket.destroy();
    await closed;
  };

  await listen();
  return { url: `http://127.0.0.1:${port}`, down: stop, up: listen, close: stop };
}
