import type { ReceiptSummary } from '@toolgate/contract';
import { describe, expect, it } from 'vitest';
import { csvCell, toCsv, toJsonLines } from './export-receipts.ts';

const ROW: ReceiptSummary = {
  id: 'r1',
  gateway: 'edge-a',
  seq: '1',
  receivedAt: '2026-01-05T10:00:00.000Z',
  surface: 'openai-chat',
  model: 'gpt, "quoted"',
  stream: false,
  status: 200,
  outcome: 'blocked',
  identity: { human: '=HYPERLINK("x")', service: null, session: null, binding: 'verified' },
  tools: ['read_file', 'create_pull_request'],
  calls: [
    { name: 'read_file', state: 'allowed' },
    { name: 'create_pull_request', state: 'blocked', reason: 'hidden' },
  ],
  callCount: 2,
  rules: ['guardrails/hide-pr-creation'],
  policies: ['guardrails'],
  hash: 'sha256:00',
};

describe('receipt export', () => {
  it('writes one JSON object a line', () => {
    const text = toJsonLines([ROW, { ...ROW, id: 'r2' }]);
    const lines = text.trimEnd().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as ReceiptSummary).id)).toEqual(['r1', 'r2']);
  });

  it('writes CSV with the tools called and blocked, quoting and defusing hostile cells', () => {
    const [header, line] = toCsv([ROW]).split('\r\n');
    expect(header).toContain('tools_called,tools_blocked,tools_withheld');
    expect(line).toContain('read_file create_pull_request,create_pull_request,,');
    expect(line).toContain('"gpt, ""quoted"""');
    // A spreadsheet must not run an agent's string as a formula.
    expect(line).toContain(`"'=HYPERLINK(""x"")"`);
  });

  it.each([
    ['plain', 'plain'],
    ['-1+2', "'-1+2"],
    ['@cmd', "'@cmd"],
    ['a\nb', '"a\nb"'],
  ])('csvCell(%j) = %j', (input, output) => {
    expect(csvCell(input)).toBe(output);
  });
});
