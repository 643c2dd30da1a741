import {
  canonicalize,
  chainReceiptJson,
  compactReceipt,
  hashCanonical,
  issuesToCauses,
  type Receipt,
  StoredReceipt,
  ToolSet,
} from '@toolgate/core';
import { until } from '@toolgate/core/testing';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { HELD, hold, ingestTestStack } from './ingest-testing.ts';
import { chainOf, fixtureReceiptBody } from './receipt-fixtures.ts';
import { call } from './receipts-testing.ts';

const { stack, gateway, bodies, ingest, rowCount, whileHeld, rowLockWaits, storedChain } =
  ingestTestStack();

describe('receipt ingest', () => {
  it('stores a chain, derives the query columns and answers created per item', async () => {
    const client = await gateway('gw-happy');
    const chain = chainOf(bodies('gw-happy', 5));
    const results = await ingest(client, 'gw-happy', chain);
    expect(results).toEqual(chain.map((r) => ({ id: r.id, result: 'created' })));
    expect(await storedChain('gw-happy')).toEqual(
      chain.map((r, i) => ({ id: r.id, seq: i + 1, prev_hash: r.prev_hash, hash: r.hash })),
    );
    const { rows } = await stack.db.query(
      `SELECT outcome, status, tools, rules, policies, identity_human, identity_session, binding,
              surface, model, stream, received_at
       FROM receipts WHERE id = $1`,
      ['gw-happy-r0'],
    );
    expect(rows[0]).toMatchObject({
      outcome: 'blocked',
      status: 200,
      tools: ['search_code', 'create_pull_request', 'read_file'],
      rules: ['guardrails/hide-pr-creation', 'annotate/search-read-only'],
      policies: ['guardrails', 'annotate'],
      identity_human: 'alice',
      identity_session: 'session-1',
      binding: 'verified',
      surface: 'openai-chat',
      model: 'gpt-4o-mini',
      stream: false,
    });
    expect((rows[0].received_at as Date).toISOString()).toBe(chain[0]?.timestamps.received_at);
    const one = await stack.api.operator.call('receipts.get', { params: { id: 'gw-happy-r1' } });
    expect(one).toEqual({ seq: '2', receipt: chain[1] });

    // The next batch continues the chain where the stored one ends.
    const next = chainOf(bodies('gw-happy', 2, 5), chain.at(-1)?.hash);
    expect((await ingest(client, 'gw-happy', next)).map((r) => r.result)).toEqual([
      'created',
      'created',
    ]);
    expect((await storedChain('gw-happy')).map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('stores each tool set once and receipts by reference; serves receipts whole', async () => {
    const client = await gateway('gw-sets');
    const chain = chainOf(bodies('gw-sets', 4));
    const setHash = compactReceipt(chain[0] as Receipt).stored.tool_set_hash;
    expect(chain.every((r) => compactReceipt(r).stored.tool_set_hash === setHash)).toBe(true);
    await ingest(client, 'gw-sets', chain.slice(0, 2));
    // The set is stored now: later batches need not send it.
    const later = await ingest(client, 'gw-sets', chain.slice(2), false);
    expect(later.map((r) => r.result)).toEqual(['created', 'created']);
    const { rows } = await stack.db.query(
      'SELECT tool_set_hash, body FROM receipts WHERE gateway = $1 ORDER BY seq',
      ['gw-sets'],
    );
    expect(rows.map((row) => row.tool_set_hash)).toEqual(chain.map(() => setHash));
    expect(rows[0].body).not.toHaveProperty('tools');
    expect(rows[0].body.tool_set_hash).toBe(setHash);
    const sets = await stack.db.query('SELECT body FROM tool_sets WHERE hash = $1', [setHash]);
    expect(sets.rows).toHaveLength(1);
    expect(hashCanonical(sets.rows[0].body)).toBe(setHash);
    const served = await call(stack.api.operator, 'receipts.get', { params: { id: 'gw-sets-r3' } });
    expect(served.receipt).toEqual(chain[3]);
    const verification = await call(stack.api.operator, 'receipts.verify', {
      params: { name: 'gw-sets' },
    });
    expect(verification).toMatchObject({ gateway: 'gw-sets', valid: true, checked: 4 });
  });

  it('takes receipts and tool sets in canonical order (as gateways send them) and checks them alike', async () => {
    const client = await gateway('gw-ordered');
    const chain = chainOf(bodies('gw-ordered', 3));
    // The gateway's wire form (its recorder's `chainReceiptJson`): each receipt its canonical
    // text with `hash` appended, each tool set its canonical text (parsed here, as the API's
    // body parser parses them).
    const toolSets: Record<string, unknown> = {};
    const items = chain.map(({ hash: _hash, prev_hash, ...body }) => {
      const chained = chainReceiptJson(body, prev_hash);
      toolSets[chained.toolSetHash] = JSON.parse(canonicalize(chained.toolSet));
      return JSON.parse(chained.json);
    });
    // In that order, but with a value changed: the hash must still catch it.
    const doctored = { ...items[2], model: 'gpt-doctored' };
    const first = await call(client, 'receipts.ingest', {
      params: { name: 'gw-ordered' },
      body: { receipts: [items[0], items[1], doctored], tool_sets: toolSets },
    });
    expect(first.results.map((r: { result: string }) => r.result)).toEqual([
      'created',
      'created',
      'rejected',
    ]);
    expect(first.results[2]).toMatchObject({ reason: 'HashMismatch' });
    const again = await call(client, 'receipts.ingest', {
      params: { name: 'gw-ordered' },
      body: { receipts: [items[2]] },
    });
    expect(again.results).toEqual([{ id: 'gw-ordered-r2', result: 'created' }]);
    const served = await call(stack.api.operator, 'receipts.get', {
      params: { id: 'gw-ordered-r2' },
    });
    expect(served.receipt).toEqual(chain[2]);
    const verification = await call(stack.api.operator, 'receipts.verify', {
      params: { name: 'gw-ordered' },
    });
    expect(verification).toMatchObject({ valid: true, checked: 3 });
  });

  it('rejects a receipt whose tool set is neither stored nor sent valid, naming the field', async () => {
    const client = await gateway('gw-unknown-set');
    // A tool list no other test uses: its tool set is not stored yet.
    const chain = chainOf(bodies('gw-unknown-set', 2, 0, ['read_file', 'list_unknown_sets']));
    const [missing] = await ingest(client, 'gw-unknown-set', chain.slice(0, 1), false);
    expect(missing).toMatchObject({ result: 'rejected', reason: 'Invalid' });
    expect(missing?.message).toMatch(/^tool_set_hash: no tool set sha256:[0-9a-f]{64} is stored/);
    // A set filed under another hash, or not a tool set, is refused, and so is its receipt.
    const { stored, toolSet } = compactReceipt(chain[0] as Receipt);
    const misfiled = { ...toolSet, tools: toolSet.tools.slice(1) };
    const sent = async (set: unknown) =>
      call(client, 'receipts.ingest', {
        params: { name: 'gw-unknown-set' },
        body: { receipts: [stored], tool_sets: { [stored.tool_set_hash]: set } },
      });
    const [wrongHash] = (await sent(misfiled)).results;
    expect(wrongHash?.message).toContain(
      `tool_sets["${stored.tool_set_hash}"]: its content hashes to`,
    );
    const [notASet] = (await sent({ tools: [{ name: 1 }] })).results;
    expect(notASet).toMatchObject({ result: 'rejected', reason: 'Invalid' });
    expect(notASet?.message).toContain('tools[0].name');
    // A v2 receipt with its tool set inline is refused: the stored form references it.
    const [inline] = await call(client, 'receipts.ingest', {
      params: { name: 'gw-unknown-set' },
      body: { receipts: [{ ...stored, tools: toolSet.tools }] },
    }).then((answer) => answer.results);
    expect(inline?.message).toMatch(/^tools: /);
    expect(await rowCount('gw-unknown-set')).toBe(0);
    const { rows } = await stack.db.query(
      'SELECT count(*)::int AS n FROM tool_sets WHERE hash = $1',
      [stored.tool_set_hash],
    );
    expect(rows[0].n).toBe(0);
    expect((await ingest(client, 'gw-unknown-set', chain)).map((r) => r.result)).toEqual([
      'created',
      'created',
    ]);
  });

  it('stores every valid one of a batch of 600 tool sets, and not the misfiled one', async () => {
    const client = await gateway('gw-many-sets');
    // The chain's two receipts use two of the 600 sets, no receipt references the rest, and one
    // of those is invalid (misfiled).
    const chain = chainOf(bodies('gw-many-sets', 2, 0, ['read_file', 'many_sets_tool']));
    const tool_sets: Record<string, unknown> = {};
    const items = chain.map((receipt) => {
      const { stored, toolSet } = compactReceipt(receipt);
      tool_sets[stored.tool_set_hash] = toolSet;
      return stored;
    });
    const template = compactReceipt(chain[0] as Receipt).toolSet;
    const extra: string[] = [];
    for (let i = 0; i < 598; i++) {
      const set = { tools: template.tools.map((tool) => ({ ...tool, name: `many_${i}` })) };
      const hash = hashCanonical(set);
      tool_sets[hash] = set;
      extra.push(hash);
    }
    const misfiled = extra[300] as string;
    tool_sets[misfiled] = { tools: [] };
    const { results } = await call(client, 'receipts.ingest', {
      params: { name: 'gw-many-sets' },
      body: { receipts: items, tool_sets },
    });
    expect(results.map((r) => r.result)).toEqual(['created', 'created']);
    const { rows } = await stack.db.query(
      'SELECT hash FROM tool_sets WHERE hash = ANY($1::text[])',
      [Object.keys(tool_sets)],
    );
    const storedHashes = new Set(rows.map((row) => row.hash));
    expect(storedHashes.size).toBe(Object.keys(tool_sets).length - 1);
    expect(storedHashes.has(misfiled)).toBe(false);
  });

  it('keeps a valid tool set sent with a receipt that is rejected: later receipts rely on it', async () => {
    const client = await gateway('gw-kept-set');
    const chain = chainOf(bodies('gw-kept-set', 2, 0, ['read_file', 'keep_rejected_sets']));
    const tampered = { ...(chain[0] as Receipt), model: 'tampered' };
    const [mismatch] = await ingest(client, 'gw-kept-set', [tampered]);
    expect(mismatch).toMatchObject({ reason: 'HashMismatch' });
    expect((await ingest(client, 'gw-kept-set', chain, false)).map((r) => r.result)).toEqual([
      'created',
      'created',
    ]);
  });

  it('checks a tool set sent again by its hash: stored once, a doctored copy refused', async () => {
    const client = await gateway('gw-set-again');
    const chain = chainOf(bodies('gw-set-again', 4, 0, ['read_file', 'sent_again_sets']));
    const { stored, toolSet } = compactReceipt(chain[0] as Receipt);
    const hash = stored.tool_set_hash;
    expect((await ingest(client, 'gw-set-again', chain.slice(0, 1))).map((r) => r.result)).toEqual([
      'created',
    ]);
    // Sent again (a restarted gateway does): the stored set's hash, doctored content, refused.
    const doctored = { ...toolSet, tools: toolSet.tools.slice(1) };
    const [refused] = await call(client, 'receipts.ingest', {
      params: { name: 'gw-set-again' },
      body: {
        receipts: [compactReceipt(chain[1] as Receipt).stored],
        tool_sets: { [hash]: doctored },
      },
    }).then((answer) => answer.results);
    expect(refused).toMatchObject({ result: 'rejected', reason: 'Invalid' });
    expect(refused?.message).toContain(`tool_sets["${hash}"]: its content hashes to`);
    // Sent again as it is: accepted, still stored once.
    expect((await ingest(client, 'gw-set-again', chain.slice(1, 2))).map((r) => r.result)).toEqual([
      'created',
    ]);
    // Gone from the database although this API saw it stored (a restore from an older backup):
    // sent again, it is stored again, so the receipts after it resolve.
    await stack.db.query('DELETE FROM tool_sets WHERE hash = $1', [hash]);
    expect((await ingest(client, 'gw-set-again', chain.slice(2))).map((r) => r.result)).toEqual([
      'created',
      'created',
    ]);
    const sets = await stack.db.query('SELECT body FROM tool_sets WHERE hash = $1', [hash]);
    expect(sets.rows.map((row) => hashCanonical(row.body))).toEqual([hash]);
    const verification = await call(stack.api.operator, 'receipts.verify', {
      params: { name: 'gw-set-again' },
    });
    expect(verification).toMatchObject({ valid: true, checked: 4 });
  });

  it('still takes toolgate.receipt.v1 receipts (tool set inline) and verifies them', async () => {
    const client = await gateway('gw-v1');
    const v1Chain: Receipt[] = [];
    for (const body of bodies('gw-v1', 3)) {
      const linked = {
        ...body,
        schema: 'toolgate.receipt.v1',
        prev_hash: v1Chain.at(-1)?.hash ?? null,
      };
      v1Chain.push({ ...linked, hash: hashCanonical(linked) } as unknown as Receipt);
    }
    const { results } = await call(client, 'receipts.ingest', {
      params: { name: 'gw-v1' },
      body: { receipts: v1Chain },
    });
    expect(results.map((r) => r.result)).toEqual(['created', 'created', 'created']);
    // A v2 receipt continues a v1 chain.
    const [next] = chainOf(bodies('gw-v1', 1, 3), v1Chain.at(-1)?.hash);
    expect((await ingest(client, 'gw-v1', [next])).map((r) => r.result)).toEqual(['created']);
    const served = await call(stack.api.operator, 'receipts.get', { params: { id: 'gw-v1-r1' } });
    expect(served.receipt).toEqual(v1Chain[1]);
    const { rows } = await stack.db.query('SELECT tools FROM receipts WHERE id = $1', ['gw-v1-r0']);
    expect(rows[0].tools).toEqual(['search_code', 'create_pull_request', 'read_file']);
    const verification = await call(stack.api.operator, 'receipts.verify', {
      params: { name: 'gw-v1' },
    });
    expect(verification).toMatchObject({ gateway: 'gw-v1', valid: true, checked: 4 });
  });

  it('takes a v1 receipt with an unknown tool_set_hash member as v1 (the schema decides)', async () => {
    const client = await gateway('gw-v1-extra');
    const [body] = bodies('gw-v1-extra', 1);
    // Not a member of v1 (zod's copy would drop it): the receipt is still read for its inline tools.
    const linked = {
      ...body,
      schema: 'toolgate.receipt.v1',
      tool_set_hash: `sha256:${'f'.repeat(64)}`,
      prev_hash: null,
    };
    const receipt = { ...linked, hash: hashCanonical(linked) };
    const { results } = await call(client, 'receipts.ingest', {
      params: { name: 'gw-v1-extra' },
      body: { receipts: [receipt] },
    });
    expect(results).toEqual([{ id: 'gw-v1-extra-r0', result: 'created' }]);
    const { rows } = await stack.db.query('SELECT tools, body FROM receipts WHERE id = $1', [
      'gw-v1-extra-r0',
    ]);
    expect(rows[0].tools).toEqual(['search_code', 'create_pull_request', 'read_file']);
    expect(rows[0].body.tool_set_hash).toBe(linked.tool_set_hash);
  });

  it('runs a batch again when PostgreSQL breaks a deadlock by aborting it', async () => {
    const client = await gateway('gw-deadlock');
    const chain = chainOf(bodies('gw-deadlock', 3, 0, ['deadlock_tool']));
    // Another session holds the name row of the batch's new tool (uncommitted), which the
    // batch's transaction writes too…
    await whileHeld(HELD.toolNameRow('deadlock_tool'), async (other) => {
      const ingested = ingest(client, 'gw-deadlock', chain);
      await until(async () => (await rowLockWaits()) > 0);
      // …and then waits for the gateway's chain lock, which the ingest holds: a deadlock,
      // which PostgreSQL breaks by aborting the ingest (the first to wait).
      await hold(other, HELD.chainLock('gw-deadlock'));
      await other.query('ROLLBACK');

      expect((await ingested).map((r) => r.result)).toEqual(['created', 'created', 'created']);
      expect(await rowCount('gw-deadlock')).toBe(3);
    });
  });

  it('stores values that array literals and the body separator must escape, exactly', async () => {
    const client = await gateway('gw-odd');
    const tools = ['odd"name', 'back\\slash', 'comma,{brace}', 'NULL', 'two words'];
    const identity = { human: 'o"brien\\', session: 'NULL', service: 'sep\u001eara,tor' };
    const chain = chainOf(
      [0, 1].map((i) =>
        fixtureReceiptBody({
          id: `gw-odd-r${i}`,
          gateway: 'gw-odd',
          receivedAt: new Date(Date.UTC(2026, 0, 2) + i * 1000).toISOString(),
          tools,
          identity,
        }),
      ),
    );
    const results = await ingest(client, 'gw-odd', chain);
    expect(results.map((r) => r.result)).toEqual(['created', 'created']);
    const { rows } = await stack.db.query(
      `SELECT tools, identity_human, identity_session, identity_service FROM receipts
       WHERE gateway = 'gw-odd' ORDER BY seq`,
    );
    for (const row of rows) {
      expect(row.tools).toEqual(tools);
      expect([row.identity_human, row.identity_session, row.identity_service]).toEqual([
        identity.human,
        identity.session,
        identity.service,
      ]);
    }
    for (const receipt of chain) {
      const served = await call(stack.api.operator, 'receipts.get', { params: { id: receipt.id } });
      expect(served.receipt).toEqual(receipt);
    }
    const verification = await call(stack.api.operator, 'receipts.verify', {
      params: { name: 'gw-odd' },
    });
    expect(verification).toMatchObject({ gateway: 'gw-odd', valid: true, checked: 2 });
  });

  it('treats a retried batch as duplicates and writes nothing twice', async () => {
    const client = await gateway('gw-retry');
    const chain = chainOf(bodies('gw-retry', 4));
    await ingest(client, 'gw-retry', chain);
    const retried = await ingest(client, 'gw-retry', chain);
    expect(retried).toEqual(chain.map((r) => ({ id: r.id, result: 'duplicate' })));
    expect(await rowCount('gw-retry')).toBe(4);
    // An overlapping batch: the stored part is duplicate, the rest continues the chain.
    const more = chainOf(bodies('gw-retry', 2, 4), chain.at(-1)?.hash);
    const overlap = await ingest(client, 'gw-retry', [...chain.slice(2), ...more]);
    expect(overlap.map((r) => r.result)).toEqual(['duplicate', 'duplicate', 'created', 'created']);
    expect(await rowCount('gw-retry')).toBe(6);
    // The same receipt twice in one batch: stored once.
    const [again] = chainOf(bodies('gw-retry', 1, 6), more.at(-1)?.hash);
    const twice = await ingest(client, 'gw-retry', [again, again]);
    expect(twice.map((r) => r.result)).toEqual(['created', 'duplicate']);
    expect(await rowCount('gw-retry')).toBe(7);
  });

  it('decides a batch longer than a chunk in order, and a retry of it stores nothing twice', async () => {
    const client = await gateway('gw-long');
    // 450 receipts: three chunks, an altered receipt in the last one, whose successors then
    // do not continue the chain.
    const chain = chainOf(bodies('gw-long', 450));
    const tampered = [...chain.slice(0, 420), { ...chain[420], prev_hash: chain[0]?.hash }];
    const first = await ingest(client, 'gw-long', [...tampered, ...chain.slice(421)]);
    expect(first.slice(0, 420).every((r) => r.result === 'created')).toBe(true);
    expect(first[420]?.reason).toBe('HashMismatch');
    expect(first.slice(421).every((r) => r.reason === 'ChainBroken')).toBe(true);
    expect(await rowCount('gw-long')).toBe(420);
    const retried = await ingest(client, 'gw-long', chain);
    expect(retried.map((r) => r.result)).toEqual([
      ...Array(420).fill('duplicate'),
      ...Array(30).fill('created'),
    ]);
    expect(await rowCount('gw-long')).toBe(450);
  });

  it('rejects an id already stored with another hash as Conflict', async () => {
    const client = await gateway('gw-conflict');
    const [first] = chainOf(bodies('gw-conflict', 1));
    await ingest(client, 'gw-conflict', [first]);
    const { hash: _hash, prev_hash: _prev, ...body } = first as Receipt;
    const altered = chainOf([{ ...body, model: 'gpt-4o' }]);
    const [result] = await ingest(client, 'gw-conflict', altered);
    expect(result).toMatchObject({ id: 'gw-conflict-r0', result: 'rejected', reason: 'Conflict' });
    expect(await rowCount('gw-conflict')).toBe(1);
  });

  it('rejects a chain break and every new item after it, keeping duplicates duplicate', async () => {
    const client = await gateway('gw-break');
    const chain = chainOf(bodies('gw-break', 6));
    await ingest(client, 'gw-break', chain.slice(0, 2));
    // Item 3 is missing: r3 does not continue from r1.
    const results = await ingest(client, 'gw-break', [
      chain[1],
      chain[3],
      chain[4],
      chain[0],
      chain[5],
    ]);
    expect(results.map((r) => [r.id, r.result, r.reason])).toEqual([
      ['gw-break-r1', 'duplicate', undefined],
      ['gw-break-r3', 'rejected', 'ChainBroken'],
      ['gw-break-r4', 'rejected', 'ChainBroken'],
      ['gw-break-r0', 'duplicate', undefined],
      ['gw-break-r5', 'rejected', 'ChainBroken'],
    ]);
    expect(results[1]?.message).toContain(chain[1]?.hash);
    expect(await rowCount('gw-break')).toBe(2);
    // Once the missing link arrives the rest follows.
    const resent = await ingest(client, 'gw-break', chain.slice(2));
    expect(resent.map((r) => r.result)).toEqual(['created', 'created', 'created', 'created']);
  });

  it('rejects a first receipt that points to a previous one', async () => {
    const client = await gateway('gw-first');
    const [orphan] = chainOf(bodies('gw-first', 1), `sha256:${'a'.repeat(64)}`);
    const [result] = await ingest(client, 'gw-first', [orphan]);
    expect(result).toMatchObject({ result: 'rejected', reason: 'ChainBroken' });
    expect(result?.message).toContain('is empty');
  });

  it("names every invalid receipt's and tool set's fields exactly as zod's parse does (table)", async () => {
    const client = await gateway('gw-zod-table');
    const [receipt] = chainOf(bodies('gw-zod-table', 1, 0, ['read_file', 'zod_table_tool']));
    const { stored, toolSet } = compactReceipt(receipt as Receipt);
    const tools = toolSet.tools;
    const receipts: Array<Record<string, unknown>> = [
      { ...stored, id: 'gw-zod-table-1', stream: 'yes' },
      { ...stored, id: 'gw-zod-table-2', latency_ms: { ...stored.latency_ms, total: -1 } },
      { ...stored, id: 'gw-zod-table-3', outcome: { status: 42.5 } },
      { ...stored, id: 'gw-zod-table-4', identity: { binding: 'trusted' } },
      { ...stored, id: 'gw-zod-table-5', bundle: { etag: 'e', policies: [{ name: 'p' }] } },
      { ...stored, id: 'gw-zod-table-6', tool_set_hash: 'sha256:short', prev_hash: 7 },
      { ...stored, id: 'x'.repeat(129), timestamps: { received_at: '2026-01-02' } },
    ];
    const { results } = await call(client, 'receipts.ingest', {
      params: { name: 'gw-zod-table' },
      body: { receipts },
    });
    const zodMessage = (schema: z.ZodType, value: unknown, prefix: PropertyKey[] = []) => {
      const parsed = schema.safeParse(value);
      if (parsed.success) throw new Error('the table holds only invalid values');
      return issuesToCauses(parsed.error.issues, prefix)
        .map((cause) => `${cause.field}: ${cause.message}`)
        .join('; ');
    };
    expect(results.map((r) => [r.result, r.reason, r.message])).toEqual(
      receipts.map((item) => ['rejected', 'Invalid', zodMessage(StoredReceipt, item)]),
    );
    // A tool set: strict at its root, plain below.
    const sets: unknown[] = [
      { tools, extra: 1 },
      { tools: [{ ...tools[0], visible_to_agent: 'no' }] },
      { tools: [{ ...tools[0], schema_hash: 'sha256:x' }], wardwright_tool_mediation: {} },
    ];
    const hash = `sha256:${'c'.repeat(64)}`;
    // A receipt that references the set and hashes right, so the set is what is judged.
    const { hash: _stated, ...rest } = { ...stored, tool_set_hash: hash };
    const referencing = { ...rest, hash: hashCanonical(rest) };
    for (const set of sets) {
      const answer = await call(client, 'receipts.ingest', {
        params: { name: 'gw-zod-table' },
        body: { receipts: [referencing], tool_sets: { [hash]: set } },
      });
      expect(answer.results[0]?.message).toBe(
        `tool_set_hash: the tool set sent for it is invalid: ${zodMessage(ToolSet, set, ['tool_sets', hash])}`,
      );
    }
  });

  it('rejects a receipt of another gateway, an invalid item and a wrong hash, per item', async () => {
    const client = await gateway('gw-items');
    const chain = chainOf(bodies('gw-items', 2));
    const [foreign] = chainOf(bodies('gw-other', 1));
    const invalid = { ...chain[0], id: 'gw-items-bad', timestamps: { received_at: 'yesterday' } };
    const tampered = { ...(chain[0] as Receipt), model: 'tampered' };
    const results = await ingest(client, 'gw-items', [
      foreign,
      invalid,
      tampered,
      chain[0],
      chain[1],
    ]);
    expect(results[0]).toMatchObject({ id: 'gw-other-r0', result: 'rejected', reason: 'Invalid' });
    expect(results[0]?.message).toMatch(/^gateway: /);
    expect(results[1]).toMatchObject({ id: 'gw-items-bad', result: 'rejected', reason: 'Invalid' });
    expect(results[1]?.message).toContain('timestamps.received_at');
    expect(results[1]?.message).toContain('timestamps.completed_at');
    expect(results[2]).toMatchObject({ result: 'rejected', reason: 'HashMismatch' });
    expect(results.slice(3).map((r) => r.result)).toEqual(['created', 'created']);
    expect(await rowCount('gw-items')).toBe(2);
    expect(await rowCount('gw-other')).toBe(0);
  });
});
