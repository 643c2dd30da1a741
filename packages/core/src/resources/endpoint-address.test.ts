import { describe, expect, it } from 'vitest';
import { forbiddenEndpointAddress } from './endpoint-address.ts';

describe('forbiddenEndpointAddress', () => {
  it.each([
    ['169.254.169.254', true],
    ['169.254.0.1', true],
    ['::ffff:169.254.169.254', true],
    ['[::ffff:a9fe:a9fe]', true],
    [new URL('http://[::ffff:169.254.169.254]/').hostname, true],
    [new URL('http://0xa9fea9fe/').hostname, true],
    ['fe80::1', true],
    ['[fe80::1]', true],
    ['fd00:ec2::254', true],
    ['metadata.google.internal', true],
    ['Metadata.Google.Internal.', true],
    ['127.0.0.1', false],
    ['10.0.0.5', false],
    ['192.168.1.1', false],
    ['::1', false],
    ['[::ffff:7f00:1]', false],
    ['search.internal.example', false],
    ['169.254.example.com', false],
  ])('%s → forbidden: %s', (address, forbidden) => {
    expect(forbiddenEndpointAddress(address) !== undefined).toBe(forbidden);
  });
});
