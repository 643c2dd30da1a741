import { spawn } from 'node:child_process';
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GatewayStatus } from '@toolgate/core';
import { until } from '@toolgate/core/testing';
import { findFreePort, postgresScratchDir } from '@toolgate/db';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../bench/gateway/processes.ts';
import { type DemoStep, runDemoAgent } from '../../scripts/stack/demo-agent.ts';
import { MCP_DEMO_RECEIPTS, runMcpDemo } from '../../scripts/stack/demo-mcp.ts';
import {
  STACK_GATEWAY,
  type Stack,
  type StackOptions,
  startStack,
} from '../../scripts/stack/stack.ts';
import { stackStatePath } from '../../scripts/stack/stack-state.ts';
import { launchBrowser, screenshot, signedInContext } from '../browser/support/browser.ts';

/**
 * The whole of Toolgate, black-box, as `pnpm start` runs it: API (its own embedded PostgreSQL),
 * gateway, console and demo upstream as separate processes. Policy through the real CLI, agent
 * traffic through the official OpenAI and Anthropic SDKs, receipts checked in the API, with
 * the CLI's chain verification, and in the console in Chromium.
 */
let dataDir: string;
let stack: Stack;
let stackOptions: StackOptions;
let browser: Browser | undefined;

/** The real `toolgate` CLI as a process; the token goes through the environment, never argv. */
function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/cli/src/cli.ts', ...args], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        TOOLGATE_API_URL: stack.urls.api,
        TOOLGATE_TOKEN: stack.operatorToken,
        TOOLGATE_CONFIG: join(dataDir, 'cli-config.json'),
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

async function applyPolicy(hidden: string): Promise<string> {
  const file = join(dataDir, `policy-${hidden}.yaml`);
  await writeFile(
    file,
    [
      'apiVersion: toolgate.dev/v1',
      'kind: MediationPolicy',
      'metadata:',
      '  name: e2e-extra',
      'spec:',
      '  selector:',
      '    matchLabels: { env: dev }',
      '  rules:',
      `    - id: hide-${hidden.replaceAll('_', '-')}`,
      '      action: hide',
      `      match: { name: ${hidden} }`,
      '',
    ].join('\n'),
  );
  const result = await cli(['apply', '-f', file]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result.stdout;
}

async function gatewayStatus(): Promise<GatewayStatus | undefined> {
  const gateway = await stack.operator.call('gateways.get', {
    params: { name: STACK_GATEWAY.name },
  });
  return gateway.status;
}

/** Waits until the running gateway reports a bundle other than `previous`, Synced. */
async function nextSyncedBundle(previous: string | undefined): Promise<string> {
  let etag: string | undefined;
  await until(async () => {
    const status = await gatewayStatus();
    const synced = status?.conditions?.find((c) => c.type === 'Synced')?.status === 'True';
    etag = status?.appliedBundleETag;
    return synced && etag !== undefined && etag !== previous;
  }, 30_000);
  return etag as string;
}

beforeAll(async () => {
  dataDir = await postgresScratchDir('toolgate-e2e-stack-');
  const [api, gateway, consolePort, mock, mcp] = await Promise.all([
    findFreePort(),
    findFreePort(),
    findFreePort(),
    findFreePort(),
    findFreePort(),
  ]);
  stackOptions = {
    dataDir,
    host: '127.0.0.1',
    ports: { api, gateway, console: consolePort, mock, mcp },
    progress: () => {},
    env: {
      api: { LOG_LEVEL: 'warn' },
      gateway: { LOG_LEVEL: 'warn', SHIP_INTERVAL_MS: '200' },
      mock: { LOG_LEVEL: 'warn' },
      mcp: { LOG_LEVEL: 'warn' },
    },
  };
  stack = await startStack(stackOptions);
}, 400_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe('the whole stack, as pnpm start runs it', () => {
  let steps: DemoStep[];
  let firstEtag: string;

  it('a policy applied with the CLI reaches the gateway (new ETag, Synced)', async () => {
    const before = (await gatewayStatus())?.appliedBundleETag;
    expect(await applyPolicy('read_file')).toContain('mediationpolicy/e2e-extra created');
    firstEtag = await nextSyncedBundle(before);
  });

  it('the SDKs through the gateway: the provider sees exactly the mediated tools', async () => {
    steps = await runDemoAgent({
      gatewayUrl: stack.urls.gateway,
      mockUrl: stack.urls.mock,
      agentToken: stack.agentToken,
    });
    // Seed policies (hide PRs, augment search, replace web search, rename the issue tool) and
    // the CLI's policy (hide read_file), on every request, every surface.
    for (const step of steps) {
      expect(step.providerSaw.sort(), step.title).toEqual([
        'approved_web_search',
        'gh_create_issue',
        'search_code',
      ]);
      expect(step.receiptId).toMatch(/^rcpt_/);
    }
    const got = Object.fromEntries(steps.map((s) => [s.title, s.agentGot]));
    expect(got['search code (augmented tool)']).toEqual(['search_code']);
    expect(got['call the hidden create_pull_request (blocked)']).toEqual([]);
    expect(got['open an issue (renamed tool, renamed back)']).toEqual(['github/create_issue']);
    expect(got['open an issue on the Responses API (renamed back)']).toEqual([
      'github/create_issue',
    ]);
    // read_file is hidden now: the streamed call to it is blocked, no fragment reaches the agent.
    expect(got['read a file, streamed']).toEqual([]);
    expect(got['web search (replaced by the approved backend), Anthropic SDK']).toEqual([
      'web_search',
    ]);
    expect(got['open an issue, streamed (renamed back), Gemini SDK']).toEqual([
      'github/create_issue',
    ]);
  });

  it('every receipt reaches the API, bound to the agent, with a valid chain', async () => {
    const ids = new Set(steps.map((s) => s.receiptId));
    await until(async () => {
      const page = await stack.operator.call('receipts.list', {
        query: { gateway: STACK_GATEWAY.name, limit: 100 },
      });
      return [...ids].every((id) => page.items.some((item) => item.id === id));
    }, 30_000);
    const page = await stack.operator.call('receipts.list', {
      query: { gateway: STACK_GATEWAY.name, limit: 100 },
    });
    for (const item of page.items.filter((i) => ids.has(i.id))) {
      expect(item.identity).toMatchObject({ service: 'demo-agent', binding: 'verified' });
    }
    const verified = await cli(['receipts', 'verify', '--gateway', STACK_GATEWAY.name]);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toContain(`chain intact, ${steps.length} receipts verified`);
  });

  it('the console shows them in the browser', async () => {
    browser = await launchBrowser();
    const context = await signedInContext(browser, stack.operatorToken);
    const page = await context.newPage();
    await page.goto(`${stack.urls.console}/receipts?gateway=${STACK_GATEWAY.name}`);
    for (const step of steps) {
      await page.locator(`a[href="/receipts/${step.receiptId}"]`).waitFor({ timeout: 30_000 });
    }
    await screenshot(page, 'stack-receipts');
    await page.locator(`a[href="/receipts/${steps[1]?.receiptId}"]`).click();
    await page.getByText('create_pull_request').first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'stack-receipt-blocked');
    await context.close();
  });

  it('changing the policy propagates, and the next request follows it', async () => {
    expect(await applyPolicy('search_code')).toContain('mediationpolicy/e2e-extra configured');
    const etag = await nextSyncedBundle(firstEtag);
    expect(etag).not.toBe(firstEtag);
    const [next] = await runDemoAgent({
      gatewayUrl: stack.urls.gateway,
      mockUrl: stack.urls.mock,
      agentToken: stack.agentToken,
    });
    expect(next?.providerSaw.sort()).toEqual([
      'approved_web_search',
      'gh_create_issue',
      'read_file',
    ]);
    expect(next?.agentGot).toEqual([]); // its scripted call is to search_code, hidden now
  });

  it('a restart reuses the data: same operator token, seed untouched, receipts kept', async () => {
    const options = stackOptions;
    const before = await stack.operator.call('receipts.list', {
      query: { gateway: STACK_GATEWAY.name, limit: 100 },
    });
    await until(async () => {
      const page = await stack.operator.call('receipts.list', {
        query: { gateway: STACK_GATEWAY.name, limit: 100 },
      });
      return page.items.length >= 10;
    }, 30_000);
    const token = stack.operatorToken;
    await stack.stop();
    const seedLines: string[] = [];
    stack = await startStack({ ...options, progress: (line) => seedLines.push(line) });
    expect(stack.operatorToken).toBe(token);
    expect(seedLines).toContain('demo seed already in place');
    const after = await stack.operator.call('receipts.list', {
      query: { gateway: STACK_GATEWAY.name, limit: 100 },
    });
    expect(after.items.length).toBeGreaterThanOrEqual(Math.max(10, before.items.length));
    const policy = await stack.operator.call('mediationPolicies.get', {
      params: { name: 'e2e-extra' },
    });
    expect(policy.metadata.generation).toBe(2);
    expect((await stat(stackStatePath(dataDir))).mode & 0o777).toBe(0o600);
  }, 300_000);

  it('the MCP demo through the gateway: hidden tool gone, call withheld, receipts stored', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const run = await runMcpDemo({ gatewayUrl: stack.urls.gateway, agentToken: stack.agentToken });
    expect(run.listed).not.toContain('delete_repo');
    expect(run.steps.map((s) => s.outcome)).toEqual([
      'result',
      expect.stringMatching(/^(error result|JSON-RPC error)$/),
      'JSON-RPC error',
      'result',
      'error result',
    ]);
    await until(async () => {
      const page = await stack.operator.call('receipts.list', {
        query: { gateway: STACK_GATEWAY.name, since, limit: 100 },
      });
      return (
        page.items.filter((item) => (item.surface as string) === 'mcp').length >= MCP_DEMO_RECEIPTS
      );
    }, 30_000);
  });
});
