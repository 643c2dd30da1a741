import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '@toolgate/db';
import { type OtlpReceiver, startOtlpReceiver } from '@toolgate/telemetry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGateway } from './build.ts';

const GATEWAY = fileURLToPath(new URL('..', import.meta.url));

describe('the production build', () => {
  const cleanup: string[] = [];
  let main: string;
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    // Inside apps/gateway: the bundle imports its npm dependencies from there.
    const outDir = join(GATEWAY, '.tmp', `build-${process.pid}-${Date.now()}`);
    cleanup.push(outDir);
    main = await buildGateway(join(outDir, 'main.mjs'));
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    for (const dir of cleanup) await rm(dir, { recursive: true, force: true });
  });

  /** The built gateway run with plain node and `env`; `stop()` sends SIGTERM and waits for exit 0. */
  async function run(env: Record<string, string> = {}) {
    const dataDir = await mkdtemp(join(tmpdir(), 'toolgate-built-gateway-'));
    cleanup.push(dataDir);
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
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const url = `http://127.0.0.1:${port}`;
    let health: Response | undefined;
    for (let attempt = 0; attempt < 100 && !health; attempt++) {
      health = await fetch(`${url}/healthz`).catch(() => undefined);
      if (!health) await sleep(100);
    }
    expect(health?.status, output).toBe(200);
    return {
      url,
      output: () => output,
      async stop() {
        child.kill('SIGTERM');
        const [code] = await once(child, 'exit');
        expect(code, output).toBe(0);
      },
    };
  }

  const refusedRequest = (url: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'm', messages: [] }),
    });

  it('is one module that runs with plain node: serves health, and refuses agents until it has a bundle', async () => {
    const gateway = await run();
    try {
      expect((await fetch(`${gateway.url}/readyz`)).status).toBe(503);
      const refused = await refusedRequest(gateway.url);
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
        /no valid policy bundle/,
      );
      expect(gateway.output()).toContain(`listening on ${gateway.url}`);
    } finally {
      await gateway.stop();
    }
  });

  it('loads the OpenTelemetry SDK when an OTLP endpoint is set, and exports each request’s span', async () => {
    receiver.clear();
    const gateway = await run({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'edge-built',
      LOG_LEVEL: 'info',
    });
    try {
      expect(gateway.output()).toContain(
        `tracing on: OTLP http/protobuf to ${receiver.url}/v1/traces`,
      );
      expect((await refusedRequest(gateway.url)).status).toBe(503);
    } finally {
      // The last spans are exported on the way out.
      await gateway.stop();
    }
    const [span] = await receiver.waitFor((spans) => spans.length > 0);
    expect(span).toMatchObject({
      name: 'chat',
      attributes: expect.objectContaining({
        'http.response.status_code': 503,
        'gen_ai.provider.name': 'openai',
      }),
      resource: expect.objectContaining({ 'service.name': 'edge-built' }),
    });
  });

  it('exports nothing with the SDK disabled, though an endpoint is set', async () => {
    receiver.clear();
    const gateway = await run({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SDK_DISABLED: 'true',
      LOG_LEVEL: 'info',
    });
    try {
      expect((await refusedRequest(gateway.url)).status).toBe(503);
    } finally {
      await gateway.stop();
    }
    expect(gateway.output()).not.toContain('tracing on');
    expect(receiver.exports).toEqual([]);
  });
});
