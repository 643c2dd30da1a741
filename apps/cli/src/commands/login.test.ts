import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import { REPOSITORY_ROOT, runCli, spawnCli, tempDir } from '../testing/run-cli.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

/** A port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('toolgate login', () => {
  it('checks the token, saves it readable by the owner only, and later commands use it', async () => {
    const config = join(tempDir(), 'nested', 'toolgate', 'config.json');
    const env = { TOOLGATE_CONFIG: config };
    const run = await runCli(['login', '--api-url', api.url, '--token-stdin'], {
      env,
      stdin: `${api.operatorToken}\n`,
    });
    expect(run).toEqual({
      code: 0,
      stdout: `Logged in to ${api.url} as admin (human; roles: operator).\nSaved to ${config} (mode 0600).\n`,
      stderr: '',
    });
    expect(modeOf(config)).toBe(0o600);
    expect(modeOf(join(config, '..'))).toBe(0o700);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({
      apiUrl: api.url,
      token: api.operatorToken,
    });

    const whoami = await runCli(['whoami'], { env });
    expect(whoami.stdout).toBe(`admin (human; roles: operator) at ${api.url}\n`);
  });

  it('tightens an existing config file to 0600', async () => {
    const config = join(tempDir(), 'config.json');
    writeFileSync(config, '{}', { mode: 0o644 });
    const run = await runCli(['login', '--api-url', api.url, '--token', api.operatorToken], {
      env: { TOOLGATE_CONFIG: config },
    });
    expect(run.code).toBe(0);
    expect(modeOf(config)).toBe(0o600);
  });

  it('saves nothing when the API rejects the token, and never prints it', async () => {
    const config = join(tempDir(), 'config.json');
    const wrong = ['tg', 'not-a-real-token-000000000000000000000000000'].join('_');
    const run = await runCli(['login', '--api-url', api.url, '--token', wrong], {
      env: { TOOLGATE_CONFIG: config },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: a valid bearer token is required');
    expect(run.stderr + run.stdout).not.toContain(wrong);
    expect(() => statSync(config)).toThrow();

    const none = await runCli(['login', '--api-url', api.url], {
      env: { TOOLGATE_CONFIG: config },
    });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no token');
  });

  it('sends the saved token only to the saved API; flags and environment come first', async () => {
    const config = join(tempDir(), 'config.json');
    await runCli(['login', '--api-url', api.url, '--token', api.operatorToken], {
      env: { TOOLGATE_CONFIG: config },
    });
    // The same server under another name is another API as far as the config is concerned.
    const elsewhere = api.url.replace('127.0.0.1', 'localhost');
    const other = await runCli(['whoami', '--api-url', elsewhere], {
      env: { TOOLGATE_CONFIG: config },
    });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('a valid bearer token is required');

    const { token: auditor } = await api.identity('precedence-auditor', ['auditor']);
    const fromEnv = await runCli(['whoami'], {
      env: { TOOLGATE_CONFIG: config, TOOLGATE_TOKEN: auditor },
    });
    expect(fromEnv.stdout).toContain('precedence-auditor');
    const fromFlag = await runCli(['whoami', '--token', api.operatorToken], {
      env: { TOOLGATE_CONFIG: config, TOOLGATE_TOKEN: auditor },
    });
    expect(fromFlag.stdout).toContain('admin');
  });

  it('refuses a config file that is not valid without quoting it', async () => {
    const config = join(tempDir(), 'config.json');
    const secret = ['tg', 'leaky-000000000000000000000000000000000000000'].join('_');
    writeFileSync(config, `{"apiUrl": "${api.url}", "token": "${secret}"`, { mode: 0o600 });
    const run = await runCli(['get', 'policies'], { env: { TOOLGATE_CONFIG: config } });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `error: ${config}: the config file is not valid JSON; run toolgate login\n`,
    );
  });
});

describe('authentication and authorization errors', () => {
  it('names the problem without echoing the token', async () => {
    const { token: auditor } = await api.identity('errors-auditor', ['auditor']);
    const dir = tempDir();
    writeFileSync(
      join(dir, 'p.yaml'),
      'apiVersion: toolgate.dev/v1\nkind: MediationPolicy\nmetadata: {name: p}\nspec: {rules: []}\n',
    );
    const forbidden = await runCli(['apply', '-f', dir, '--api-url', api.url, '--token', auditor]);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toMatch(/errors-auditor/);
    expect(forbidden.stderr).toContain('nothing was applied');
    expect(forbidden.stderr).not.toContain(auditor);

    const closed = `http://127.0.0.1:${await closedPort()}`;
    const unreachable = await runCli(['get', 'policies', '--api-url', closed, '--token', auditor]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toBe(`error: API unreachable: ${closed} (ECONNREFUSED)\n`);
  });
});

describe('toolgate tokens', () => {
  it('issues a token shown once, lists it without the secret, and revokes it', async () => {
    const operator = ['--api-url', api.url, '--token', api.operatorToken];
    await api.identity('tokens-bot', ['agent'], 'service');
    const issued = await runCli([
      'tokens',
      'issue',
      'tokens-bot',
      '--description',
      'ci',
      '--ttl',
      '1h',
      ...operator,
    ]);
    expect(issued.code).toBe(0);
    const secret = issued.stdout.trim();
    expect(secret).toMatch(/^tg_[A-Za-z0-9_-]{43}$/);

    const me = await runCli(['whoami', '--api-url', api.url, '--token', secret]);
    expect(me.stdout).toContain('tokens-bot (service; roles: agent)');

    const list = await runCli(['tokens', 'list', 'tokens-bot', '-o', 'json', ...operator]);
    const [summary] = JSON.parse(list.stdout).items;
    expect(summary).toMatchObject({ identity: 'tokens-bot', description: 'ci', revokedAt: null });
    expect(list.stdout).not.toContain(secret);

    const revoked = await runCli(['tokens', 'revoke', 'tokens-bot', summary.id, ...operator]);
    expect(revoked.stdout).toBe(`token ${summary.id} of tokens-bot revoked\n`);
    const after = await runCli(['whoami', '--api-url', api.url, '--token', secret]);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('hint:');
  });

  it('writes the secret to a new 0600 file with --token-file', async () => {
    const path = join(tempDir(), 'gateway.token');
    await api.identity('tokens-gateway', ['gateway']);
    const run = await runCli([
      'tokens',
      'issue',
      'tokens-gateway',
      '--token-file',
      path,
      '--api-url',
      api.url,
      '--token',
      api.operatorToken,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^token tok_[0-9a-f]+ issued for tokens-gateway; secret written to /,
    );
    expect(modeOf(path)).toBe(0o600);
    const secret = readFileSync(path, 'utf8').trim();
    expect(run.stdout).not.toContain(secret);
    const again = await runCli([
      'tokens',
      'issue',
      'tokens-gateway',
      '--token-file',
      path,
      '--api-url',
      api.url,
      '--token',
      api.operatorToken,
    ]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
  });
});

describe('the real toolgate process', () => {
  it('logs in from stdin, applies a policy from the examples and reads it back', async () => {
    const env = { TOOLGATE_CONFIG: join(tempDir(), 'config.json') };
    const login = await spawnCli(['login', '--api-url', api.url, '--token-stdin'], {
      env,
      stdin: api.operatorToken,
    });
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).not.toContain(api.operatorToken);

    const policy = join(REPOSITORY_ROOT, 'examples/policies/github-guardrails.yaml');
    const apply = await spawnCli(['apply', '-f', policy], { env });
    expect(apply).toEqual({
      code: 0,
      stdout: 'mediationpolicy/github-guardrails created\n',
      stderr: '',
    });

    const get = await spawnCli(['get', 'policy', 'github-guardrails', '-o', 'json'], { env });
    expect(JSON.parse(get.stdout).spec.rules.map((r: { id: string }) => r.id)).toEqual([
      'hide-pr-creation',
      'search-scope',
      'replace-web-search',
      'short-issue-name',
    ]);
    const diff = await spawnCli(['diff', '-f', policy], { env });
    expect(diff).toEqual({ code: 0, stdout: '', stderr: '' });

    const badEnv = await spawnCli(['get', 'policies'], {
      env: { ...env, TOOLGATE_API_URL: 'not a url' },
    });
    expect(badEnv.code).toBe(1);
    expect(badEnv.stderr).toContain('TOOLGATE_API_URL: must be a URL');
  });
});
