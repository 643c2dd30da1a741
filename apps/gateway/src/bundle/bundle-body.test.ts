import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bundleText, MAX_BUNDLE_BYTES, UndecodableBodyError } from './bundle-body.ts';

/** Node's global fetch of a server that answers `text` gzipped. */
async function fetchGzipped(text: string): Promise<Response> {
  const server = createServer((_request, reply) => {
    reply.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(text));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/`);
    return new Response(await response.arrayBuffer(), { headers: response.headers });
  } finally {
    server.close();
  }
}

const answer = (body: Buffer | string, coding?: string) =>
  new Response(body, { headers: coding ? { 'content-encoding': coding } : {} });

describe('bundleText', () => {
  const text = '{"kind":"GatewayBundle","gateway":"edge-ü"}';

  it('reads a plain body, and a gzipped one of several members as the API sends it', async () => {
    expect(await bundleText(answer(text))).toBe(text);
    expect(await bundleText(answer(text, 'identity'))).toBe(text);
    const members = Buffer.concat([gzipSync(text.slice(0, 10)), gzipSync(text.slice(10))]);
    expect(await bundleText(answer(members, 'gzip'))).toBe(text);
    expect(await bundleText(answer(gzipSync(text), ' GZIP '))).toBe(text);
  });

  it('takes a body a fetch has decoded already (the header kept), as the global fetch gives it', async () => {
    expect(await bundleText(answer(text, 'gzip'))).toBe(text);
    const served = await fetchGzipped(text);
    expect(served.headers.get('content-encoding')).toBe('gzip');
    expect(await bundleText(served)).toBe(text);
  });

  it('refuses gzip cut short or corrupt, a bomb, and codings it never asks for', async () => {
    const zipped = gzipSync(text);
    const refused = (response: Response) =>
      expect(bundleText(response)).rejects.toBeInstanceOf(UndecodableBodyError);
    await refused(answer(zipped.subarray(0, zipped.length - 6), 'gzip'));
    await refused(answer(Buffer.from([0x1f, 0x8b, 1, 2, 3]), 'gzip'));
    await refused(answer(gzipSync(Buffer.alloc(MAX_BUNDLE_BYTES + 1)), 'gzip'));
    await expect(bundleText(answer(text, 'br'))).rejects.toThrow('content-encoding br');
  });
});
