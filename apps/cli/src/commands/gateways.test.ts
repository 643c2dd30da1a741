import type { ReceiptQuarantineStatus } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerGateway } from '../../../api/src/receipts/receipts-testing.ts';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import { type CliRun, runCli } from '../testing/run-cli.ts';

let api: TestApi;
let auditorToken: string;
beforeAll(async () => {
  api = await startTestApi();
  auditorToken = (await api.identity('gateways-auditor', ['auditor'])).token;
});
afterAll(async () => {
  await api?.close();
});

function toolgate(...args: string[]): Promise<CliRun> {
  return runCli([...args, '--api-url', api.url, '--token', auditorToken]);
}

/** A gateway that reported this quarantine in its status, as a running gateway does. */
async function gatewayReporting(name: string, quarantine?: ReceiptQuarantineStatus) {
  const client = await registerGateway(api, name);
  await client.call('gateways.replaceStatus', {
    params: { name },
    body: { status: { conditions: [], ...(quarantine ? { receiptQuarantine: quarantine } : {}) } },
  });
}

describe('toolgate gateways quarantine', () => {
  it('lists the quarantined receipts a gateway reports', async () => {
    const hash = `sha256:${'a'.repeat(64)}`;
    const quarantine: ReceiptQuarantineStatus = {
      count: 12,
      lastReason: 'Invalid',
      lastTime: '2026-05-01T10:00:02.000Z',
      recent: [
        {
          id: 'rcpt-big',
          hash,
          reason: 'RequestEntityTooLarge',
          message: 'request body is too large',
          bytes: 9437312,
          quarantinedAt: '2026-05-01T10:00:01.000Z',
        },
        {
          id: 'rcpt-bad',
          hash,
          reason: 'Invalid',
          bytes: 1200,
          quarantinedAt: '2026-05-01T10:00:02.000Z',
        },
      ],
    };
    await gatewayReporting('edge-quarantine', quarantine);

    const run = await toolgate('gateways', 'quarantine', 'edge-quarantine');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout.split('\n')).toEqual([
      "gateway/edge-quarantine: 12 quarantined receipts (the newest 2 below; the gateway's rejected-receipts.ndjson has all)",
      'QUARANTINED                RECEIPT    REASON                  BYTES     MESSAGE',
      '2026-05-01T10:00:01.000Z   rcpt-big   RequestEntityTooLarge   9437312   request body is too large',
      '2026-05-01T10:00:02.000Z   rcpt-bad   Invalid                 1200',
      '',
    ]);
    const json = await toolgate('gateways', 'quarantine', 'edge-quarantine', '-o', 'json');
    expect(JSON.parse(json.stdout)).toEqual(quarantine);
  });

  it('says so when there is nothing, and exits 1 for a gateway that does not exist', async () => {
    await gatewayReporting('edge-clean');
    expect(await toolgate('gateways', 'quarantine', 'edge-clean')).toEqual({
      code: 0,
      stdout: 'gateway/edge-clean: no quarantined receipts\n',
      stderr: '',
    });
    const missing = await toolgate('gateways', 'quarantine', 'edge-nowhere');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('edge-nowhere');
  });
});
