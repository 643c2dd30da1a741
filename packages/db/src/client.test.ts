import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { createDatabaseClients, createPrismaClient, type PrismaClient } from './client.ts';
import { createTestDatabase, type TestDatabase } from './testing.ts';

let database: TestDatabase;
let prisma: PrismaClient;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseAdminUrl'));
  prisma = createPrismaClient(database.url);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

it('writes and reads a Resource through the generated client and the pg adapter', async () => {
  await prisma.resource.create({
    data: {
      uid: 'b7d9c1e2-0000-4000-8000-000000000001',
      kind: 'MediationPolicy',
      name: 'github-guardrails',
      labels: { team: 'platform' },
      generation: 1,
      resourceVersion: 9_007_199_254_740_993n,
      spec: { rules: [{ id: 'no-delete', match: { tool: 'github.delete_*' } }] },
      specHash: 'sha256:abc',
    },
  });

  const row = await prisma.resource.findUniqueOrThrow({
    where: { kind_name: { kind: 'MediationPolicy', name: 'github-guardrails' } },
  });

  expect(row).toMatchObject({
    uid: 'b7d9c1e2-0000-4000-8000-000000000001',
    labels: { team: 'platform' },
    annotations: {},
    status: {},
    generation: 1,
    // Beyond Number.MAX_SAFE_INTEGER: BigInt survives the round trip.
    resourceVersion: 9_007_199_254_740_993n,
    spec: { rules: [{ id: 'no-delete', match: { tool: 'github.delete_*' } }] },
  });
  expect(row.createdAt).toBeInstanceOf(Date);
});

it('fills autoincrement ids and text[] columns', async () => {
  const event = await prisma.resourceEvent.create({
    data: { kind: 'MediationPolicy', name: 'p', type: 'ADDED', object: {} },
  });
  const receipt = await prisma.receipt.create({
    data: {
      id: 'r1',
      gateway: 'gw-1',
      seq: 1n,
      receivedAt: new Date('2026-01-02T03:04:05.678Z'),
      surface: 'openai-chat',
      model: 'gpt-test',
      stream: false,
      status: 200,
      outcome: 'ok',
      binding: 'default',
      tools: ['github.search', 'github.get_issue'],
      rules: [],
      policies: ['github-guardrails'],
      hash: 'sha256:def',
      body: {},
    },
  });

  expect(typeof event.resourceVersion).toBe('bigint');
  expect(
    await prisma.receipt.findMany({
      where: { tools: { has: 'github.search' } },
      select: { id: true },
    }),
  ).toEqual([{ id: receipt.id }]);
  expect(receipt.receivedAt.toISOString()).toBe('2026-01-02T03:04:05.678Z');
});

it('shares one pool between Prisma and raw node-postgres, and $disconnect ends it', async () => {
  const { prisma: client, pool } = createDatabaseClients(database.url);
  await client.$executeRaw`SELECT pg_advisory_lock(4242)`;
  // A session-level advisory lock is held by the one connection that took it: the pool's.
  const held = await pool.query<{ held: boolean }>(
    `SELECT bool_or(granted AND pid = pg_backend_pid()) AS held FROM pg_locks
     WHERE locktype = 'advisory' AND objid = 4242`,
  );
  expect(pool.totalCount).toBe(1);
  expect(held.rows[0]?.held).toBe(true);
  await client.$disconnect();
  expect(pool.ended).toBe(true);
  await expect(pool.query('SELECT 1')).rejects.toThrow(/after calling end on the pool/);
});
