import { Agent, type Dispatcher, request } from 'undici';

/**
 * The `fetch` the gateway hands its API client: `undici.request` underneath, the answer read in
 * full and returned as a standard `Response`. Node's built-in `fetch` copies a request body
 * before sending it and streams it through web streams; for the receipt shipper, whose ingest
 * bodies run to megabytes, that copy blocked the proxy's event loop for milliseconds per
 * batch. `request` writes the bytes to the socket as they are. Only what the API client uses is
 * supported: a URL or string, method, string-record headers, a string or byte body, a signal.
 */
export function apiFetch(dispatcher: Dispatcher = new Agent({ keepAliveTimeout: 30_000 })) {
  return async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    if (input instanceof Request) throw new TypeError('apiFetch takes a URL, not a Request');
    const body = init.body;
    const sendable =
      body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
    if (!sendable) throw new TypeError('apiFetch sends string or byte bodies');
    const answer = await request(input, {
      dispatcher,
      method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
      headers: (init.headers ?? {}) as Record<string, string>,
      ...(body !== undefined && body !== null ? { body } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    const bytes = await answer.body.arrayBuffer();
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      else if (value !== undefined) headers.set(name, value);
    }
    const empty = answer.statusCode === 204 || answer.statusCode === 304;
    return new Response(empty ? null : bytes, { status: answer.statusCode, headers });
  };
}
