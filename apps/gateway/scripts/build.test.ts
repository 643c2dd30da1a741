import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '@toolgate/db';
import { afterAll, describe, expect, it } from 'vitest';
import { buildGateway } from './build.ts';

const GATEWAY = fileURLToPath(new URL('..', import.meta.url));

describe('the production build', () => {
  const cleanup: string[] = [];
  afterAll(async () => {
    for (const dir of cleanup) await rm(dir, { recursive: true, force: true });
  });

  it('is one module that runs with plain node: serves health, and refuses agents until it has a bundle', async () => {
    // Inside apps/gateway: the bundle imports its npm dependencies from there.
    const outDir = join(GATEWAY, '.tmp', `build-${process.pid}-${Date.now()}`);
    const dataDir = await mkdtemp(join(tmpdir(), 'toolgate-built-gateway-'));
    cleanup.push(outDir, dataDir);
    const main = await buildGateway(join(outDir, 'main.mjs'));

    const port = await findFreePort();
    const child = spawn(process.execPath, ['--enable-source-maps', main], {
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: dataDir,
        // Nothing listens there: the gateway keeps retrying the sync and stays not ready.
        API_URL: `http://127.0.0.1:${await findFreePort()}`,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const url = `http://127.0.0.1:${port}`;
    try {
      let health: Response | undefined;
      for (let attempt = 0; attempt < 100 && !health; attempt++) {
        health = await fetch(`${url}/healthz`).catch(() => undefined);
        if (!health) await sleep(100);
      }
      expect(health?.status, output).toBe(200);
      expect((await fetch(`${url}/readyz`)).status).toBe(503);
      const refused = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [] }),
      });
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
        /no valid policy bundle/,
      );
      expect(output).toContain(`listening on ${url}`);
    } finally {
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code, output).toBe(0);
    }
  });
});
