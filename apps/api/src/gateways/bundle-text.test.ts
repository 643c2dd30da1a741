import { gunzipSync, gzipSync } from 'node:zlib';
import { canonicalize, hashCanonical } from '@toolgate/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptsGzip } from './bundle.controller.ts';
import { CanonicalObjectText, encodeMember, storedGzipMember } from './bundle-text.ts';

function joined(object: Record<string, unknown>) {
  return new CanonicalObjectText(
    Object.fromEntries(Object.entries(object).map(([key, value]) => [key, encodeMember(value)])),
  );
}

describe('CanonicalObjectText', () => {
  it('is byte for byte the canonical text of a bundle-shaped object, and hashes like it', () => {
    const bundle = {
      kind: 'GatewayBundle',
      gateway: 'edge-ü-1',
      apiVersion: 'toolgate.dev/v1',
      policies: [{ name: 'p', generation: 2, hash: 'sha256:00', spec: { b: 1.5, a: -0 } }],
      profiles: [],
      identities: [{ name: 'alice', roles: ['agent'], type: 'human' }],
      contracts: [{ z: '€😀', a: null }],
      mcpServers: [],
    };
    const text = joined(bundle);
    expect(text.toBuffer().toString('utf8')).toBe(canonicalize(bundle));
    expect(text.byteLength).toBe(Buffer.byteLength(canonicalize(bundle)));
    expect(text.hash()).toBe(hashCanonical(bundle));
  });

  it('orders keys by UTF-16 code units, as JCS does', () => {
    const object = { b: 1, a: 2, A: 3, é: 4, '\u{1f600}': 5, '\uff61': 6, '': 7 };
    expect(joined(object).toBuffer().toString('utf8')).toBe(canonicalize(object));
  });

  it('matches canonicalize for random objects', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 8 }), (object) => {
        const normal = JSON.parse(JSON.stringify(object)) as Record<string, unknown>;
        expect(joined(normal).toBuffer().toString('utf8')).toBe(canonicalize(normal));
        expect(joined(normal).hash()).toBe(hashCanonical(normal));
      }),
    );
  });

  it('gzips to members that decompress to the text, sharing the members of shared parts', () => {
    const shared = encodeMember({
      schemas: Array.from({ length: 200 }, (_, i) => ({ name: `tool_${i}`, type: 'object' })),
    });
    const a = new CanonicalObjectText({ gateway: encodeMember('gw-a'), contracts: shared });
    const b = new CanonicalObjectText({ gateway: encodeMember('gw-b'), contracts: shared });
    expect(gunzipSync(a.gzip()).equals(a.toBuffer())).toBe(true);
    expect(gunzipSync(b.gzip()).equals(b.toBuffer())).toBe(true);
    expect(a.gzip().length).toBeLessThan(a.byteLength / 4);
    // The shared part's member is the same bytes in both (made once), the gateways' differ.
    const sharedMember = gzipSync(shared);
    expect(a.gzip().includes(sharedMember)).toBe(true);
    expect(b.gzip().includes(sharedMember)).toBe(true);
    expect(a.gzip().equals(b.gzip())).toBe(false);
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 8 }), (object) => {
        const normal = JSON.parse(JSON.stringify(object)) as Record<string, unknown>;
        expect(gunzipSync(joined(normal).gzip()).toString('utf8')).toBe(canonicalize(normal));
      }),
      { numRuns: 50 },
    );
  });
});

describe('storedGzipMember', () => {
  it('is a gzip member any gunzip reads, alone or among others', () => {
    for (const text of ['', '"gw-1"', 'ü😀'.repeat(100), 'x'.repeat(512)]) {
      const data = Buffer.from(text);
      expect(gunzipSync(storedGzipMember(data)).equals(data)).toBe(true);
      const pair = Buffer.concat([storedGzipMember(data), gzipSync(data)]);
      expect(gunzipSync(pair).equals(Buffer.concat([data, data]))).toBe(true);
    }
  });
});

describe('acceptsGzip', () => {
  it('reads Accept-Encoding as RFC 9110 does', () => {
    expect(acceptsGzip('gzip, deflate')).toBe(true);
    expect(acceptsGzip('br;q=1.0, GZIP;q=0.5')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip(['identity', 'gzip'])).toBe(true);
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('deflate, br')).toBe(false);
    expect(acceptsGzip('x-gzip')).toBe(false);
  });
});
