import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { GatewayBundle } from '@toolgate/contract';
import {
  type BundleHostedTool,
  type BundleMcpServer,
  type CapabilityContractSpec,
  canonicalize,
  deepFreeze,
  type HostedToolSpec,
  type IdentitySpec,
  type McpServerSpec,
  type McpServerStatus,
  type MediationPolicySpec,
  matchesLabelSelector,
  NotFoundError,
  type ProviderProfileSpec,
} from '@toolgate/core';
import { TokenRepository } from '../auth/token.repository.ts';
import { ChangeNotifier } from '../database/change-notifier.ts';
import { type ResourceRecord, ResourceRepository } from '../resources/resource.repository.ts';
import { CanonicalObjectText, type EncodedMember, encodeMember } from './bundle-text.ts';

/** Kinds whose changes can change some gateway's bundle. */
const BUNDLE_KINDS = new Set([
  'MediationPolicy',
  'Identity',
  'CapabilityContract',
  'ProviderProfile',
  'Gateway',
  'McpServer',
  'HostedTool',
]);

export interface VersionedBundle {
  bundle: GatewayBundle;
  etag: string;
  /**
   * The bundle's canonical text, UTF-8 encoded: what the ETag hashes and what the long-poll
   * answers with, joined from parts encoded once per change (bundle-text.ts), so a fleet woken
   * by one change is served without serializing or encoding the shared parts per gateway.
   */
  body(): Buffer;
  /** The same text gzipped (made once per change and gateway), for a poll that accepts gzip. */
  gzipBody(): Buffer;
}

/** The rows a snapshot is made of, each part read again only when a change can touch it. */
interface LoadedParts {
  gateways: ResourceRecord[];
  policies: ResourceRecord[];
  identities: ResourceRecord[];
  contracts: ResourceRecord[];
  profiles: ResourceRecord[];
  servers: ResourceRecord[];
  tokens: Map<string, Array<{ sha256: string; expiresAt: string | null }>>;
  hosted: ResourceRecord[];
}
type SnapshotPart = keyof LoadedParts;
const ALL_PARTS: ReadonlyArray<SnapshotPart> = [
  'gateways',
  'policies',
  'identities',
  'contracts',
  'profiles',
  'servers',
  'tokens',
  'hosted',
];
/** The parts a change of each kind can touch (a token's change is notified as its Identity's). */
const PARTS_OF_KIND: Readonly<Record<string, ReadonlyArray<SnapshotPart>>> = {
  Gateway: ['gateways'],
  MediationPolicy: ['policies'],
  Identity: ['identities', 'tokens'],
  CapabilityContract: ['contracts'],
  ProviderProfile: ['profiles'],
  McpServer: ['servers'],
  HostedTool: ['hosted'],
};

/** When the first of these live tokens expires (ms since the epoch; Infinity: none does). */
function firstExpiry(tokens: LoadedParts['tokens']): number {
  let first = Number.POSITIVE_INFINITY;
  for (const list of tokens.values()) {
    for (const token of list) {
      if (token.expiresAt !== null) first = Math.min(first, Date.parse(token.expiresAt));
    }
  }
  return first;
}

/** Everything bundles are made of, loaded once per change and shared by every gateway. */
interface Snapshot {
  gateways: Map<string, ResourceRecord>;
  policies: ResourceRecord[];
  identities: ResourceRecord[];
  contracts: ResourceRecord[];
  profiles: ResourceRecord[];
  /** What every gateway's bundle says of MCP servers: the same for all of them. */
  mcpServers: BundleMcpServer[];
  /** Every HostedTool by name; empty: the bundle has no `hostedTools` (its ETag as before). */
  hostedTools: BundleHostedTool[];
  /** Live token hashes by identity name. */
  tokens: Map<string, Array<{ sha256: string; expiresAt: string | null }>>;
  /** Built on first use and shared: what a fleet's bundles have in common is made once. */
  memo: SnapshotMemo;
}

/**
 * Per snapshot: the parts every bundle shares, the policies each label set selects, and each
 * gateway's bundle. The shared parts are deeply frozen and their canonical texts encoded once,
 * so a fleet woken by one apply hashes (and serves) each gateway's bundle by joining buffers made
 * once, not by serializing contracts, profiles and identities again per gateway.
 */
interface SnapshotMemo {
  shared?: SharedParts;
  selections: Map<string, Selection>;
  bundles: Map<string, VersionedBundle>;
}

type SharedMembers = Pick<
  GatewayBundle,
  'apiVersion' | 'kind' | 'identities' | 'contracts' | 'profiles' | 'mcpServers' | 'hostedTools'
>;

/** The members every bundle shares, and each one's canonical text, encoded once. */
interface SharedParts {
  members: SharedMembers;
  texts: Record<keyof SharedMembers, EncodedMember>;
}

/** The policies one label set selects, and their canonical text, encoded once. */
interface Selection {
  policies: GatewayBundle['policies'];
  text: EncodedMember;
}

/**
 * Builds a gateway's bundle (the policies its labels select, in merged order; agent identities,
 * no secrets; contracts; profiles) and long-polls for a new one. The ETag is the canonical hash
 * of the bundle, so it changes exactly when the content does, on every API replica alike.
 */
@Injectable()
export class BundleService implements OnModuleInit, OnModuleDestroy {
  /** Bumped by every committed change of a bundle kind; a snapshot is valid for one version. */
  private version = 0;
  private cached: { version: number; snapshot: Promise<Snapshot> } | undefined;
  /** Per part, the version of the last change that can have touched it. */
  private readonly changedAt: Record<SnapshotPart, number> = Object.fromEntries(
    ALL_PARTS.map((part) => [part, 0]),
  ) as Record<SnapshotPart, number>;
  /** The newest completed load's parts, and per part the version its rows were read at. */
  private loaded: { parts: LoadedParts; readAt: Record<SnapshotPart, number> } | undefined;
  private loadedVersion = -1;
  private unsubscribe: (() => void) | undefined;
  private parked = 0;

  constructor(
    @Inject(ResourceRepository) private readonly resources: ResourceRepository,
    @Inject(ChangeNotifier) private readonly notifier: ChangeNotifier,
    @Inject(TokenRepository) private readonly tokenRepository: TokenRepository,
  ) {}

  onModuleInit(): void {
    // Registered before any long-poll listens, so a woken poll always sees the new version.
    this.unsubscribe = this.notifier.subscribe((change) => {
      if (change && !BUNDLE_KINDS.has(change.kind)) return;
      this.version++;
      // Which parts the change can have touched (all of them when it does not say).
      const parts = change ? (PARTS_OF_KIND[change.kind] ?? ALL_PARTS) : ALL_PARTS;
      for (const part of parts) this.changedAt[part] = this.version;
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** Long-polls held right now, waiting for their gateway's bundle to change. */
  get waiting(): number {
    return this.parked;
  }

  async current(gatewayName: string): Promise<VersionedBundle> {
    const snapshot = await this.snapshot();
    const known = snapshot.memo.bundles.get(gatewayName);
    if (known) return known;
    const gateway = snapshot.gateways.get(gatewayName)?.object;
    if (!gateway) throw new NotFoundError('Gateway', gatewayName);
    const shared = sharedParts(snapshot);
    const selection = selectedPolicies(snapshot, gateway.metadata.labels ?? {});
    const bundle: GatewayBundle = {
      ...shared.members,
      gateway: gatewayName,
      policies: selection.policies,
    };
    const text = new CanonicalObjectText({
      ...shared.texts,
      gateway: encodeMember(gatewayName),
      policies: selection.text,
    });
    let gzipped: Buffer | undefined;
    const versioned = {
      bundle,
      etag: text.hash(),
      body: () => text.toBuffer(),
      gzipBody: () => {
        gzipped ??= text.gzip();
        return gzipped;
      },
    };
    snapshot.memo.bundles.set(gatewayName, versioned);
    return versioned;
  }

  /**
   * One load per change, shared by every gateway that asks (100 woken long-polls cost one set
   * of queries). A load started before a change is never reused after it.
   */
  private snapshot(): Promise<Snapshot> {
    if (this.cached?.version === this.version) return this.cached.snapshot;
    const version = this.version;
    const snapshot = (async () => {
      // Only the parts a change since the last load can have touched are read again: a policy
      // applied to a fleet of 1,000 reloads the policies, not 1,000 gateways, identities and
      // tokens. A part whose rows were read at `readAt` holds every change notified up to it
      // (the notification comes after the commit, the read after the version was taken).
      const base = this.loaded;
      // Live tokens are also read again once one of them has expired since, as before.
      const now = Date.now();
      const reused = new Set(
        ALL_PARTS.filter(
          (part) =>
            base !== undefined &&
            this.changedAt[part] <= base.readAt[part] &&
            (part !== 'tokens' || now < firstExpiry(base.parts.tokens)),
        ),
      );
      const load = <P extends SnapshotPart>(part: P, read: () => Promise<LoadedParts[P]>) =>
        base !== undefined && reused.has(part) ? base.parts[part] : read();
      const readAt = Object.fromEntries(
        ALL_PARTS.map((part) => [part, base && reused.has(part) ? base.readAt[part] : version]),
      ) as Record<SnapshotPart, number>;
      const [gateways, policies, identities, contracts, profiles, servers, tokens, hosted] =
        await Promise.all([
          load('gateways', () => this.resources.all('Gateway')),
          load('policies', () => this.resources.all('MediationPolicy')),
          load('identities', () => this.resources.all('Identity')),
          load('contracts', () => this.resources.all('CapabilityContract')),
          load('profiles', () => this.resources.all('ProviderProfile')),
          load('servers', () => this.resources.all('McpServer')),
          load('tokens', () => this.tokenRepository.liveByIdentity(new Date())),
          load('hosted', () => this.resources.all('HostedTool')),
        ]);
      const parts = {
        gateways,
        policies,
        identities,
        contracts,
        profiles,
        servers,
        tokens,
        hosted,
      };
      if (this.loaded === undefined || version >= this.loadedVersion) {
        this.loaded = { parts, readAt };
        this.loadedVersion = version;
      }
      return {
        gateways: new Map(gateways.map((g) => [g.object.metadata.name, g])),
        policies,
        identities,
        contracts,
        profiles,
        mcpServers: servers.map(bundleMcpServer),
        hostedTools: bundleHostedTools(hosted),
        tokens,
        memo: { selections: new Map(), bundles: new Map() },
      };
    })();
    this.cached = { version, snapshot };
    snapshot.catch(() => {
      if (this.cached?.snapshot === snapshot) this.cached = undefined;
    });
    return snapshot;
  }

  /**
   * The bundle once its ETag differs from `knownEtag`, or undefined after `waitSeconds` without
   * a change (HTTP 304). Woken by any committed change of a bundle kind, on any replica.
   */
  async next(
    gatewayName: string,
    knownEtag: string | undefined,
    waitSeconds: number,
    signal: AbortSignal,
  ) {
    let latest = await this.current(gatewayName);
    if (latest.etag !== knownEtag || waitSeconds === 0)
      return latest.etag === knownEtag ? undefined : latest;
    const deadline = Date.now() + waitSeconds * 1000;
    let dirty = false;
    let wake: (() => void) | undefined;
    const unsubscribe = this.notifier.subscribe((change) => {
      if (change && !BUNDLE_KINDS.has(change.kind)) return;
      dirty = true;
      wake?.();
    });
    const onAbort = () => wake?.();
    signal.addEventListener('abort', onAbort);
    this.parked++;
    try {
      while (!signal.aborted && Date.now() < deadline) {
        if (!dirty) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, deadline - Date.now());
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = undefined;
        }
        if (!dirty) continue;
        dirty = false;
        latest = await this.current(gatewayName);
        if (latest.etag !== knownEtag) return latest;
      }
      return undefined;
    } finally {
      this.parked--;
      unsubscribe();
      signal.removeEventListener('abort', onAbort);
    }
  }
}

/** The policies `labels` select, in merged order (higher priority first, then by name). */
function selectedPolicies(snapshot: Snapshot, labels: Record<string, string>): Selection {
  const key = canonicalize(labels);
  const known = snapshot.memo.selections.get(key);
  if (known) return known;
  const selected = snapshot.policies
    .map((p) => ({ record: p, spec: p.object.spec as MediationPolicySpec }))
    .filter(({ spec }) => matchesLabelSelector(spec.selector ?? {}, labels))
    .sort(
      (a, b) =>
        b.spec.priority - a.spec.priority ||
        (a.record.object.metadata.name < b.record.object.metadata.name ? -1 : 1),
    )
    .map(({ record, spec }) => ({
      name: record.object.metadata.name,
      generation: record.object.metadata.generation,
      hash: record.specHash,
      spec,
    }));
  const policies = deepFreeze(selected);
  const selection = { policies, text: encodeMember(policies) };
  snapshot.memo.selections.set(key, selection);
  return selection;
}

/** Agent identities (no secrets: token hashes), contracts, profiles and MCP servers. */
function sharedParts(snapshot: Snapshot): SharedParts {
  if (snapshot.memo.shared) return snapshot.memo.shared;
  const { identities, contracts, profiles, mcpServers, hostedTools, tokens } = snapshot;
  const members: SharedMembers = deepFreeze({
    apiVersion: 'toolgate.dev/v1',
    kind: 'GatewayBundle',
    identities: identities
      .map((i) => ({ name: i.object.metadata.name, spec: i.object.spec as IdentitySpec }))
      .filter(({ spec }) => spec.roles.includes('agent'))
      .map(({ name, spec }) => {
        const live = tokens.get(name);
        return {
          name,
          type: spec.type,
          roles: [...spec.roles],
          ...(live && live.length > 0 ? { tokens: live } : {}),
        };
      }),
    contracts: contracts.map((c) => c.object.spec as CapabilityContractSpec),
    profiles: profiles.map((p) => p.object.spec as ProviderProfileSpec),
    mcpServers,
    ...(hostedTools.length > 0 ? { hostedTools } : {}),
  });
  const texts = Object.fromEntries(
    Object.entries(members).map(([key, value]) => [key, encodeMember(value)]),
  ) as SharedParts['texts'];
  const shared = { members, texts };
  snapshot.memo.shared = shared;
  return shared;
}

/**
 * An McpServer as gateways enforce it: upstream, headers (secrets by reference only), drift
 * mode and pins. Only the pins of its status: a gateway tells drift itself by comparing what
 * it lists against them, so a status write that moves no pin leaves every bundle as it was.
 */
function bundleMcpServer(record: ResourceRecord): BundleMcpServer {
  const spec = record.object.spec as McpServerSpec;
  const status = (record.object.status ?? {}) as Partial<McpServerStatus>;
  return {
    name: record.object.metadata.name,
    url: spec.url,
    headers: spec.headers ?? [],
    drift: spec.drift ?? 'warn',
    pins: Object.fromEntries((status.tools ?? []).map((tool) => [tool.name, tool.pinned])),
  };
}

/** HostedTools as gateways run them, by name: the spec as applied (secrets by reference only). */
function bundleHostedTools(records: ResourceRecord[]): BundleHostedTool[] {
  return records
    .map((record) => ({
      name: record.object.metadata.name,
      spec: record.object.spec as HostedToolSpec,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
