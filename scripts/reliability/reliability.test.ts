import { describe, expect, it } from 'vitest';
import { renderTable, summarize } from '../reliability.ts';
import type { Figures } from './figures.ts';
import { TAMPER_KINDS } from './trust-figures.ts';

const GOOD: Figures[] = [
  {
    source: 'soak',
    load: { requests: 750, seconds: 25, targetRate: 30, errors: 0, spoolDrained: true },
    receipts: { sent: 750, stored: 750 },
  },
  { source: 'a', fault: { name: 'PostgreSQL restart', event: 'injected' } },
  { source: 'a', fault: { name: 'PostgreSQL restart', event: 'survived' } },
  { source: 'a', receipts: { sent: 900, stored: 900 } },
  { source: 'b', badInputs: { tried: 300, serverErrors: 0 } },
  { source: 'b', badInputs: { tried: 200, serverErrors: 0 } },
  { source: 'c', secrets: { planted: 8, places: ['logs', 'database'], found: 0 } },
  { source: 'g', evasion: { attempts: 40, unreceipted: 0 } },
  { source: 'h', poisonPill: { badRecords: 3, quarantined: 3, lost: 0, keptServing: true } },
  { source: 'i', spoof: { attempts: 12, verifiedWithoutProof: 0 } },
  ...TAMPER_KINDS.map((kind) => ({
    source: 'j',
    tamper: { kind, detected: true, located: true },
  })),
];

describe('summarize', () => {
  it('adds up what the tests recorded, one row per figure', () => {
    const { rows, problems } = summarize(GOOD);
    expect(problems).toEqual([]);
    expect(Object.fromEntries(rows)).toMatchObject({
      'faults injected / survived': '1 / 1 (1 kinds)',
      'bad inputs tried': '500 (0 answered 5xx)',
      'receipts sent / stored': '1650 / 1650',
      'secrets found': '0 (8 kinds planted; searched: logs, database)',
      'receipt evasion attempts': '40 (0 unreceipted)',
      'poison-pill receipts': '3 bad, 3 quarantined, 0 lost, gateway kept serving',
      'identity spoof attempts': '12 (0 verified without proof)',
      'tampering detected and located': '6 / 6 (6 of 6 kinds)',
    });
    expect(Object.fromEntries(rows)['load held']).toContain('30 req/s × 25 s = 750 requests');
  });

  it('names every figure that is wrong, and what is missing', () => {
    const { problems } = summarize([
      ...GOOD,
      { source: 'd', fault: { name: 'gateway kill -9', event: 'injected' } },
      { source: 'd', receipts: { sent: 10, stored: 9 } },
      { source: 'e', secrets: { planted: 8, places: ['logs'], found: 2 } },
      { source: 'f', badInputs: { tried: 5, serverErrors: 1 } },
      { source: 'g', evasion: { attempts: 2, unreceipted: 1 } },
      { source: 'h', poisonPill: { badRecords: 2, quarantined: 1, lost: 1, keptServing: false } },
      { source: 'i', spoof: { attempts: 1, verifiedWithoutProof: 1 } },
      { source: 'j', tamper: { kind: 'reorder', detected: true, located: false } },
    ]);
    expect(problems).toEqual([
      'faults not survived: gateway kill -9',
      '1 bad inputs were answered with a 5xx',
      'receipts: 1660 sent but 1659 stored',
      '2 secrets found',
      '1 requests got through without a receipt',
      'poison pills: 5 bad but 4 quarantined',
      'poison pills: 1 receipts lost',
      'poison pills: the gateway stopped serving in 1 runs',
      '1 spoofed identities were bound as verified',
      'tampering missed or not located: reorder',
    ]);
    expect(summarize([]).problems).toEqual([
      'no load figures (did the soak run?)',
      'no fault was injected',
      'no bad input was tried',
      'the secret scan did not run',
      'no receipt evasion was attempted',
      'no poison-pill receipt was sent',
      'no identity spoof was attempted',
      `tampering not tried: ${TAMPER_KINDS.join(', ')}`,
    ]);
  });

  it('renders one aligned table', () => {
    const table = renderTable([
      ['a', 'one'],
      ['longer', 'two'],
    ]);
    expect(table.split('\n')).toEqual([
      '+--------+-----+',
      '| a      | one |',
      '| longer | two |',
      '+--------+-----+',
    ]);
  });
});
