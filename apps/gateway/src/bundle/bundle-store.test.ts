import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GatewayBundle } from '@toolgate/contract';
import { hashCanonical } from '@toolgate/core';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BundleRejectedError, BundleStore } from './bundle-store.ts';
import { bundleOf, HIDE_DELETES, HIDE_PRS } from './testing/bundle-fixtures.ts';

let dir: string;
let logged: string[];
const log = () => pino({ level: 'info' }, { write: (line: string) => logged.push(line) });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-bundle-'));
  logged = [];
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A copy of `value` with `edit` applied, as a bad API (or proxy) might send it. */
function edited<T>(value: T, edit: (copy: T) => void): T {
  const copy = structuredClone(value);
  edit(copy);
  return copy;
}

/** The bundle with one more rule in its first policy (no validation: that is the point). */
function withRule(bundle: GatewayBundle, rule: unknown): GatewayBundle {
  return edited(bundle, (c) => {
    (c.policies[0]?.spec.rules as unknown[] | undefined)?.push(rule);
  });
}

describe('BundleStore', () => {
  it('applies a valid bundle, persists it atomically, and reloads it after a restart', async () => {
    const store = await BundleStore.open(dir, log());
    expect(store.ready).toBe(false);
    const { bundle, etag } = bundleOf('edge-1', [HIDE_PRS, HIDE_DELETES]);
    const active = await store.apply(bundle, etag);
    expect(active.etag).toBe(etag);
    expect(active.compiled.rules.map((r) => r.rule.id).sort()).toEqual([
      'hide-deletes',
      'hide-prs',
    ]);
    expect(store.ready).toBe(true);
    expect(await readdir(dir)).toEqual(['bundle.json']);
    expect(JSON.parse(await readFile(join(dir, 'bundle.json'), 'utf8'))).toMatchObject({ etag });

    const restarted = await BundleStore.open(dir, log());
    expect(restarted.current()).toMatchObject({ etag, appliedAt: active.appliedAt });
    expect(restarted.current()?.compiled.rules).toHaveLength(2);
  });

  it.each([
    {
      what: 'an invalid policy',
      spoil: (bundle: GatewayBundle) => {
        const bad = withRule(bundle, { id: 'b', action: 'hide', match: {} });
        return { bundle: bad, etag: hashCanonical(bad) };
      },
      error: /^policies\[0\]\.spec\.rules\[1\]\.match: must name at least one selector/,
    },
    {
      what: 'an ETag that does not match the content',
      spoil: (bundle: GatewayBundle) => ({
        bundle: edited(bundle, (c) => void c.identities.pop()),
        etag: hashCanonical(bundle),
      }),
      error: /^ETag "sha256:[0-9a-f]{64}" does not match the bundle's content hash/,
    },
    {
      what: 'a schema violation',
      spoil: (bundle: GatewayBundle) => {
        const bad = edited(bundle as unknown as Record<string, unknown>, (c) => {
          c.kind = 'Other';
        });
        return { bundle: bad, etag: hashCanonical(bad) };
      },
      error: /^kind: /,
    },
  ])('rejects $what and keeps the previous bundle', async ({ spoil, error }) => {
    const store = await BundleStore.open(dir, log());
    const good = bundleOf('edge-1', [HIDE_PRS]);
    await store.apply(good.bundle, good.etag);
    const bad = spoil(bundleOf('edge-1', [HIDE_PRS, HIDE_DELETES]).bundle);
    const rejection = await store.apply(bad.bundle, bad.etag).catch((e: unknown) => e);
    expect(rejection).toBeInstanceOf(BundleRejectedError);
    expect((rejection as Error).message).toMatch(error);
    expect(store.current()?.etag).toBe(good.etag);
    expect(JSON.parse(await readFile(join(dir, 'bundle.json'), 'utf8')).etag).toBe(good.etag);
  });

  it('names the failing field of an invalid policy', async () => {
    const store = await BundleStore.open(dir, log());
    const { bundle } = bundleOf('edge-1', [HIDE_PRS]);
    const bad = withRule(bundle, { id: 'b', action: 'hide', match: { name: '' } });
    await expect(store.apply(bad, hashCanonical(bad))).rejects.toThrow(
      /^policies\[0\]\.spec\.rules\[1\]\.match\.name: must not be empty$/,
    );
  });

  it('refuses a bundle built for another gateway when it knows its name', async () => {
    const store = await BundleStore.open(dir, log(), { gateway: 'edge-1' });
    const { bundle, etag } = bundleOf('edge-2', [HIDE_PRS]);
    await expect(store.apply(bundle, etag)).rejects.toThrow(/gateway: is "edge-2"/);
  });

  it.each([
    { what: 'corrupt', content: '{"etag": "sha256:' },
    {
      what: 'tampered with',
      content: (() => {
        const { bundle, etag } = bundleOf('edge-1', [HIDE_PRS]);
        bundle.policies = [];
        return JSON.stringify({ etag, appliedAt: new Date().toISOString(), bundle });
      })(),
    },
  ])('starts without a bundle when the persisted one is $what', async ({ content }) => {
    await writeFile(join(dir, 'bundle.json'), content);
    const store = await BundleStore.open(dir, log());
    expect(store.ready).toBe(false);
    expect(logged.join('')).toContain('ignoring the persisted policy bundle');
    const { bundle, etag } = bundleOf('edge-1', [HIDE_PRS]);
    await store.apply(bundle, etag);
    expect(store.ready).toBe(true);
  });

  it('applies concurrent bundles one at a time: the last one wins, on disk too', async () => {
    const store = await BundleStore.open(dir, log());
    const a = bundleOf('edge-1', [HIDE_PRS]);
    const b = bundleOf('edge-1', [HIDE_PRS, HIDE_DELETES]);
    await Promise.all([store.apply(a.bundle, a.etag), store.apply(b.bundle, b.etag)]);
    expect(store.current()?.etag).toBe(b.etag);
    expect((await BundleStore.open(dir, log())).current()?.etag).toBe(b.etag);
  });
});
