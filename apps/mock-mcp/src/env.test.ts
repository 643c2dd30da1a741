import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { envHelp, parseEnv } from './env.ts';

describe('parseEnv', () => {
  it('has defaults for everything and treats an empty key as none', () => {
    expect(parseEnv({ MOCK_MCP_REQUIRE_KEY: '' })).toEqual({
      HOST: '127.0.0.1',
      PORT: 8091,
      MOCK_MCP_MAX_SESSIONS: 1000,
      MOCK_MCP_SESSION_IDLE_MS: 600_000,
      LOG_LEVEL: 'info',
    });
  });

  it('lists what is wrong', () => {
    expect(() => parseEnv({ PORT: 'x', MOCK_MCP_MAX_SESSIONS: '0', LOG_LEVEL: 'loud' })).toThrow(
      /PORT[\s\S]*MOCK_MCP_MAX_SESSIONS[\s\S]*LOG_LEVEL/,
    );
  });
});

describe('--help', () => {
  it('lists every variable with its default, and exits 0 without listening', () => {
    for (const name of ['HOST', 'PORT', 'MOCK_MCP_REQUIRE_KEY', 'LOG_LEVEL']) {
      expect(envHelp()).toContain(name);
    }
    expect(envHelp()).toMatch(/PORT\s+8091\s+port/);
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', '--help'], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      encoding: 'utf8',
      env: { ...process.env, PORT: 'not a port' },
      timeout: 30_000,
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(envHelp());
  });
});
