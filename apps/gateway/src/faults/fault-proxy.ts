import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';

/**
 * An HTTP proxy in front of the API that misbehaves on demand, per request: answers in its
 * place (garbage, an error page, a bundle of its own), or rewrites what the API answered (a
 * wrong ETag). Everything else passes through, streamed (long-polls included). Test support for
 * the fault-injection tests.
 */

export interface SeenRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** Bytes as they are: a gzipped bundle (the gateway asks for gzip) stays gzip. */
  body?: string | Buffer;
}

export type Fault =
  /** Answer instead of the API; the API never sees the request. */
  | { respond: Reply }
  /**
   * Forward (with `requestHeaders` changed: `undefined` removes one), then answer what
   * `rewrite` makes of the API's answer.
   */
  | {
      requestHeaders?: Record<string, string | undefined>;
      rewrite: (answer: Required<Reply> & { body: Buffer }) => Reply;
    };

export interface FaultProxy {
  url: string;
  /** Decides per request; `undefined` passes it through. Replace at any time. */
  fault: (request: SeenRequest) => Fault | undefined;
  close(): Promise<void>;
}

export async function startFaultProxy(targetUrl: string): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const proxy: FaultProxy = {
    url: '',
    fault: () => undefined,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  const forward = (
    incoming: IncomingMessage,
    headers: IncomingHttpHeaders,
    onAnswer: (answer: IncomingMessage) => void,
    onError: (error: Error) => void,
  ) => {
    const outgoing = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...headers, host: target.host },
      },
      onAnswer,
    );
    outgoing.on('error', onError);
    incoming.pipe(outgoing);
  };

  const handle = (incoming: IncomingMessage, response: ServerResponse) => {
    const seen = {
      method: incoming.method ?? 'GET',
      url: incoming.url ?? '/',
      headers: incoming.headers,
    };
    const fault = proxy.fault(seen);
    const fail = (error: Error) => {
      if (!response.headersSent) response.writeHead(502);
      response.end(`fault proxy: ${error.message}`);
    };
    if (fault && 'respond' in fault) {
      incoming.resume();
      send(response, fault.respond);
      return;
    }
    if (!fault) {
      forward(
        incoming,
        incoming.headers,
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
        fail,
      );
      response.on('close', () => incoming.destroy());
      return;
    }
    const headers: IncomingHttpHeaders = { ...incoming.headers };
    for (const [name, value] of Object.entries(fault.requestHeaders ?? {})) {
      if (value === undefined) delete headers[name];
      else headers[name] = value;
    }
    forward(
      incoming,
      headers,
      async (answer) => {
        const chunks: Buffer[] = [];
        for await (const chunk of answer) chunks.push(chunk as Buffer);
        const answered: Required<Reply> & { body: Buffer } = {
          status: answer.statusCode ?? 502,
          headers: Object.fromEntries(
            Object.entries(answer.headers)
              .filter(([name]) => !['content-length', 'transfer-encoding'].includes(name))
              .map(([name, value]) => [name, String(value)]),
          ),
          body: Buffer.concat(chunks),
        };
        send(response, fault.rewrite(answered));
      },
      fail,
    );
  };

  const server: Server = createServer(handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  proxy.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return proxy;
}

function send(response: ServerResponse, reply: Reply): void {
  const body = reply.body ?? '';
  response.writeHead(reply.status, {
    ...reply.headers,
    'content-length': String(Buffer.byteLength(body)),
  });
  response.end(body);
}
