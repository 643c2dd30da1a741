import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedLookup, type Resolve } from './endpoint-address.ts';

/**
 * The gateway's DNS check of hosted tool endpoints, through undici as the executor connects: a
 * name answered with a link-local or metadata address fails the connection with the error the
 * executor reports as `refused`; other answers connect.
 */

const ANSWERS: Record<string, string[]> = {
  'allowed.test': ['127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'rebound.test': ['127.0.0.1', '169.254.169.254'],
  'mapped.test': ['::ffff:169.254.169.254'],
};

const fakeResolve: Resolve = (hostname, _options, callback) => {
  const answers = ANSWERS[hostname];
  if (!answers) {
    callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
    return;
  }
  callback(
    null,
    answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
  );
};

let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((_request, response) => response.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function call(host: string): Promise<string> {
  const pool = new Pool(`http://${host}:${port}`, {
    connect: { lookup: createGuardedLookup(fakeResolve) },
  });
  try {
    const response = await pool.request({ path: '/', method: 'GET' });
    return await response.body.text();
  } catch (error) {
    return `${(error as { code?: string }).code}: ${(error as Error).message}`;
  } finally {
    await pool.destroy();
  }
}

describe('createGuardedLookup', () => {
  it('connects to a name that resolves to an allowed address', async () => {
    expect(await call('allowed.test')).toBe('ok');
  });

  it.each(['metadata.test', 'rebound.test', 'mapped.test'])(
    'refuses %s, which resolves to a link-local address',
    async (host) => {
      const result = await call(host);
      expect(result).toMatch(/^TOOLGATE_FORBIDDEN_ADDRESS: /);
      expect(result).toContain(`${host} resolves to a link-local address`);
    },
  );

  it('passes resolution errors on', async () => {
    expect(await call('unknown.test')).toMatch(/^ENOTFOUND/);
  });
});
