import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bundleText, MAX_BUNDLE_BYTES, UndecodableBodyError } from './bundle-body.ts';

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

  it('refuses gzip cut short or corrupt, a bomb, and codings it never asks for', async () => {
    const zipped = gzipSync(text);
    const refused = (response: Response) =>
      expect(bundleText(response)).rejects.toBeInstanceOf(UndecodableBodyError);
    await refused(answer(zipped.subarray(0, zipped.length - 6), 'gzip'));
    await refused(answer(Buffer.from('not gzip at all'), 'gzip'));
    await refused(answer(gzipSync(Buffer.alloc(MAX_BUNDLE_BYTES + 1)), 'gzip'));
    await expect(bundleText(answer(text, 'br'))).rejects.toThrow('content-encoding br');
  });
});
