import { MCP_LIMITS, type McpDrift } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { observedStatus, type Status, trimDrifts } from './mcp-status-transitions.ts';

const hash = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`;
const drift = (i: number, state: McpDrift['state']): McpDrift => ({
  id: `d${i}`,
  tool: `t${i}`,
  from: hash(1),
  to: hash(2),
  detectedAt: '2026-05-01T00:00:00.000Z',
  detectedBy: 'gw',
  state,
});

describe('trimDrifts', () => {
  it('keeps at most the limit, dropping the oldest resolved events first, open ones last', () => {
    const drifts = Array.from({ length: MCP_LIMITS.drifts + 3 }, (_, i) =>
      drift(i, i % 2 === 0 ? 'open' : 'accepted'),
    );
    const kept = trimDrifts(drifts);
    expect(kept).toHaveLength(MCP_LIMITS.drifts);
    expect(kept.map((d) => d.id).slice(0, 4)).toEqual(['d0', 'd2', 'd4', 'd6']);
    expect(kept.filter((d) => d.state === 'open')).toHaveLength(
      drifts.filter((d) => d.state === 'open').length,
    );
    const allOpen = Array.from({ length: MCP_LIMITS.drifts + 1 }, (_, i) => drift(i, 'open'));
    expect(trimDrifts(allOpen)[0]?.id).toBe('d1');
  });
});

describe('observedStatus', () => {
  it('keeps a tool the server stopped listing, pin and all', () => {
    const empty: Status = { conditions: [], tools: [], drifts: [] };
    const now = new Date('2026-05-01T00:00:00Z');
    const first = observedStatus(empty, [{ name: 'a', hash: hash(1) }], 'gw', now, () => 'x');
    const later = new Date(now.getTime() + 120_000);
    const next = observedStatus(first as Status, [], 'gw', later, () => 'y');
    expect(next?.tools.map((t) => [t.name, t.pinned])).toEqual([['a', hash(1)]]);
    const back = observedStatus(
      next as Status,
      [{ name: 'a', hash: hash(3) }],
      'gw',
      later,
      () => 'z',
    );
    expect(back?.drifts.map((d) => [d.id, d.from, d.to, d.state])).toEqual([
      ['z', hash(1), hash(3), 'open'],
    ]);
  });
});
