import { describe, expect, it } from 'vitest';
import { hashCanonical } from '../hash/hash.ts';
import { buildReceiptBody } from './build-receipt.ts';
import {
  chainReceipt,
  chainReceiptJson,
  receiptHash,
  receiptHashAndJson,
  verifyChain,
} from './chain.ts';
import { Receipt, ReceiptBody, ReceiptV1, StoredReceipt, ToolSet } from './receipt-schema.ts';
import { chatReceiptInput } from './test-receipts.ts';
import { compactReceipt, expandReceipt, toolSetHash, toolSetOf } from './tool-set.ts';

const receiptInput = chatReceiptInput;

describe('buildReceiptBody', () => {
  it('records the mediation block, per-tool model and response evidence', () => {
    const body = buildReceiptBody(receiptInput('r-1'));
    expect(ReceiptBody.parse(body)).toEqual(body);
    expect(body.wardwright_tool_mediation?.applied_rules[0]?.id).toBe('hide-pr-creation');
    expect(body.response?.tool_calls.map((c) => [c.name, c.policy_state])).toEqual([
      ['search', 'allowed'],
      ['create_pull_request', 'blocked'],
    ]);
    expect(body.redacted_paths).toEqual(['response.tool_calls[0].arguments.token']);
    expect(JSON.stringify(body)).not.toContain('fake-secret');
    expect(body.bundle.policies).toEqual([
      { name: 'policy-0', generation: 1, hash: expect.stringMatching(/^sha256:/) },
    ]);
  });

  it('refuses an outcome status that is not an HTTP status, naming the field', () => {
    const body = buildReceiptBody(receiptInput('r-1'));
    const parsed = ReceiptBody.safeParse({ ...body, outcome: { status: 3_000_000_000 } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['outcome', 'status']);
  });

  it('has no mediation block when the rules changed nothing', () => {
    const body = buildReceiptBody(receiptInput('r-2', ['search']));
    expect(body).not.toHaveProperty('wardwright_tool_mediation');
    expect(body.tools).toHaveLength(1);
  });

  it('scrubs credentials from error text', () => {
    const input = {
      ...receiptInput('r-3'),
      outcome: { status: 401, error: 'Incorrect API key provided: sk-proj-FAKEFAKEFAKE0000' },
    };
    const body = buildReceiptBody(input);
    expect(body.outcome.error).toBe('Incorrect API key provided: [REDACTED]');
  });

  it('is byte-identical for the same input (clock and ids injected)', () => {
    expect(JSON.stringify(buildReceiptBody(receiptInput('r-4')))).toBe(
      JSON.stringify(buildReceiptBody(receiptInput('r-4'))),
    );
  });
});

describe('receipt chain', () => {
  const chain = () => {
    const receipts: Receipt[] = [];
    for (let i = 0; i < 5; i++) {
      receipts.push(
        chainReceipt(buildReceiptBody(receiptInput(`r-${i}`)), receipts.at(-1)?.hash ?? null),
      );
    }
    return receipts;
  };

  it('chainReceiptJson gives the stored form as text, with the same hash and its tool set', () => {
    const body = buildReceiptBody(receiptInput('r-json'));
    const prev = chain().at(-1)?.hash ?? null;
    const { hash, json, toolSet, toolSetHash: setHash } = chainReceiptJson(body, prev);
    const expected = chainReceipt(body, prev);
    expect(hash).toBe(expected.hash);
    const parsed = JSON.parse(json) as StoredReceipt;
    expect(StoredReceipt.parse(parsed)).toEqual(parsed);
    expect(parsed).not.toHaveProperty('tools');
    expect(parsed).not.toHaveProperty('wardwright_tool_mediation');
    expect(parsed.tool_set_hash).toBe(setHash);
    expect(setHash).toBe(hashCanonical(toolSet));
    expect(ToolSet.parse(toolSet)).toEqual(toolSetOf(body));
    expect(parsed).toEqual(compactReceipt(expected).stored);
    expect(expandReceipt(parsed, toolSet)).toEqual(expected);
    expect(receiptHash(parsed)).toBe(hash);
    // The ingest side: the same hash, and text that parses back to the stored receipt.
    const checked = receiptHashAndJson({ ...parsed, hash: 'sha256:stated' });
    expect(checked.hash).toBe(hash);
    expect(JSON.parse(checked.json)).toEqual({ ...parsed, hash: 'sha256:stated' });
  });

  it('verifies both forms, and covers the tool set through its hash', () => {
    const receipts = chain();
    const stored = receipts.map((receipt) => compactReceipt(receipt).stored);
    expect(verifyChain(stored)).toEqual({ valid: true, checked: 5 });
    expect(verifyChain([...receipts.slice(0, 2), ...stored.slice(2)]).valid).toBe(true);
    // Altering the inline tool set, or the stored reference to it, breaks the receipt.
    const tools = receipts[1]?.tools.map((tool) => ({ ...tool, policy_state: 'allowed' as const }));
    const altered = [...receipts];
    altered[1] = { ...(receipts[1] as Receipt), tools: tools ?? [] };
    expect(verifyChain(altered).firstBreak).toMatchObject({ index: 1, reason: 'hash_mismatch' });
    const repointed = [...stored];
    repointed[3] = { ...(stored[3] as StoredReceipt), tool_set_hash: `sha256:${'0'.repeat(64)}` };
    expect(verifyChain(repointed).firstBreak).toMatchObject({ index: 3, reason: 'hash_mismatch' });
  });

  it('verifies a v1 receipt as it was hashed: over all of it, tool set inline', () => {
    const body = { ...buildReceiptBody(receiptInput('r-v1')), schema: 'toolgate.receipt.v1' };
    const linked = { ...body, prev_hash: null };
    const v1 = ReceiptV1.parse({ ...linked, hash: hashCanonical(linked) });
    expect(verifyChain([v1])).toEqual({ valid: true, checked: 1 });
    expect(receiptHashAndJson(v1).hash).toBe(v1.hash);
    expect(verifyChain([{ ...v1, model: 'other' }]).valid).toBe(false);
  });

  it('hashes a frozen tool set once and a changed one again', () => {
    const body = buildReceiptBody(receiptInput('r-frozen'));
    const frozen = toolSetOf(body);
    expect(Object.isFrozen(frozen.tools)).toBe(true);
    expect(toolSetHash(frozen)).toBe(hashCanonical(frozen));
    const mutable = { tools: body.tools.map((tool) => ({ ...tool })) };
    const first = toolSetHash(mutable);
    (mutable.tools[0] as { name: string }).name = 'renamed';
    expect(toolSetHash(mutable)).not.toBe(first);
    expect(toolSetHash(mutable)).toBe(hashCanonical(mutable));
  });

  it('links each receipt to the previous one and verifies', () => {
    const receipts = chain();
    expect(receipts[0]?.prev_hash).toBeNull();
    expect(receipts[1]?.prev_hash).toBe(receipts[0]?.hash);
    expect(Receipt.parse(receipts[2])).toEqual(receipts[2]);
    expect(verifyChain(receipts)).toEqual({ valid: true, checked: 5 });
  });

  it('reports an altered receipt exactly', () => {
    const receipts = chain();
    receipts[2] = { ...(receipts[2] as Receipt), outcome: { status: 500 } };
    expect(verifyChain(receipts).firstBreak).toMatchObject({
      index: 2,
      id: 'r-2',
      reason: 'hash_mismatch',
    });
  });

  it('reports a deleted receipt at the one after the gap', () => {
    const receipts = chain();
    receipts.splice(1, 1);
    expect(verifyChain(receipts).firstBreak).toMatchObject({
      index: 1,
      id: 'r-2',
      reason: 'prev_hash_mismatch',
    });
  });

  it('reports reordered receipts', () => {
    const receipts = chain();
    [receipts[1], receipts[2]] = [receipts[2] as Receipt, receipts[1] as Receipt];
    expect(verifyChain(receipts).firstBreak).toMatchObject({
      index: 1,
      id: 'r-2',
      reason: 'prev_hash_mismatch',
    });
  });

  it('verifies a window given the hash before it', () => {
    const receipts = chain();
    expect(verifyChain(receipts.slice(2), receipts[1]?.hash ?? null).valid).toBe(true);
    expect(verifyChain(receipts.slice(2)).valid).toBe(false);
  });

  it('hashes the canonical receipt: key order does not matter, the hash field is excluded', () => {
    const [first] = chain();
    const shuffled = Object.fromEntries(Object.entries(first as Receipt).reverse()) as Receipt;
    expect(receiptHash(shuffled)).toBe(first?.hash);
  });

  // Golden vector: changing the receipt format or canonicalization changes this hash. If that
  // is intended, it breaks every stored chain — bump the receipt schema version instead.
  it('matches the golden hash', () => {
    const [first] = chain();
    expect(first?.hash).toMatchInlineSnapshot(
      `"sha256:37e6c159ca6da59af4ac4b94d703e50fe233e3a481117c0f5e1bd6549e452540"`,
    );
  });
});
