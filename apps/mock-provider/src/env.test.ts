import { describe, expect, it } from 'vitest';
import { parseEnv } from './env.ts';

describe('parseEnv', () => {
  it('has defaults for everything', () => {
    expect(parseEnv({})).toEqual({
      HOST: '127.0.0.1',
      PORT: 8090,
      MOCK_LATENCY_MS: 0,
      MOCK_REQUIRE_KEY: undefined,
      LOG_LEVEL: 'info',
    });
  });

  it('reads numbers and treats an empty key as none', () => {
    expect(parseEnv({ PORT: '9000', MOCK_LATENCY_MS: '25', MOCK_REQUIRE_KEY: '' })).toMatchObject({
      PORT: 9000,
      MOCK_LATENCY_MS: 25,
      MOCK_REQUIRE_KEY: undefined,
    });
    expect(parseEnv({ MOCK_REQUIRE_KEY: 'sk-x' }).MOCK_REQUIRE_KEY).toBe('sk-x');
  });

  it('lists what is wrong', () => {
    expect(() => parseEnv({ PORT: 'x', MOCK_LATENCY_MS: '-1' })).toThrow(
      /PORT[\s\S]*MOCK_LATENCY_MS/,
    );
  });
});
