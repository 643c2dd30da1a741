import type { ProviderSurface } from '@toolgate/core';
import { Pool } from 'undici';
import { ProviderCall } from './upstream-answer.ts';

export interface UpstreamConfig {
  openaiBaseUrl: string;
  anthropicBaseUrl: string;
  /** Google's Gemini API; `https://generativelanguage.googleapis.com` when absent. */
  geminiBaseUrl?: string | undefined;
  /** Keys configured on the gateway; when absent, the agent's own key is passed through. */
  openaiApiKey?: string | undefined;
  anthropicApiKey?: string | undefined;
  geminiApiKey?: string | undefined;
  timeoutMs: number;
}

export const DEFAULT_GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';

/** The provider path per surface; Gemini's names the model, so its route gives it (gemini-route.ts). */
const PATHS: Record<ProviderSurface, string | undefined> = {
  'openai-chat': '/v1/chat/completions',
  'anthropic-messages': '/v1/messages',
  gemini: undefined,
  'openai-responses': '/v1/responses',
};

/** Request headers worth forwarding; everything else (hop-by-hop, identity, cookies) stays here. */
const FORWARDED: Record<ProviderSurface, ReadonlyArray<string>> = {
  'openai-chat': ['openai-organization', 'openai-project', 'openai-beta', 'accept', 'user-agent'],
  'anthropic-messages': ['anthropic-version', 'anthropic-beta', 'accept', 'user-agent'],
  gemini: ['x-goog-api-client', 'accept', 'user-agent'],
  'openai-responses': [
    'openai-organization',
    'openai-project',
    'openai-beta',
    'accept',
    'user-agent',
  ],
};

/** What the request's URL says beyond its surface (Gemini: path and query). */
export interface UpstreamRoute {
  /** The provider path to call instead of the surface's fixed one. */
  upstreamPath?: string;
  /** An API key the agent sent in the URL (`?key=`): passed on as a header, never in a URL. */
  apiKey?: string;
}

/**
 * The Toolgate API token (`tg_` + 43 base64url characters) in a key header's value (`Bearer …`
 * or bare), if that is what it holds: it proves identity and never goes upstream.
 */
export function toolgateTokenIn(value: string): string | undefined {
  const key = value.replace(/^Bearer\s+/i, '');
  return /^tg_[A-Za-z0-9_-]{43}$/.test(key) ? key : undefined;
}

/**
 * The providers behind the gateway: one keep-alive connection pool per base URL (undici), with
 * header and body timeouts. Credentials go upstream and nowhere else.
 */
export class Upstreams {
  private readonly pools = new Map<
    ProviderSurface,
    { pool: Pool; basePath: string; origin: URL }
  >();

  constructor(private readonly config: UpstreamConfig) {
    // Surfaces of one provider (Chat Completions, Responses) share its origin's pool.
    const byOrigin = new Map<string, Pool>();
    for (const [surface, base] of [
      ['openai-chat', config.openaiBaseUrl],
      ['anthropic-messages', config.anthropicBaseUrl],
      ['gemini', config.geminiBaseUrl ?? DEFAULT_GEMINI_BASE_URL],
      ['openai-responses', config.openaiBaseUrl],
    ] as const) {
      const url = new URL(base);
      let pool = byOrigin.get(url.origin);
      if (pool === undefined) {
        pool = new Pool(url.origin, {
          connections: 256,
          pipelining: 1,
          keepAliveTimeout: 30_000,
          headersTimeout: config.timeoutMs,
          bodyTimeout: config.timeoutMs,
        });
        byOrigin.set(url.origin, pool);
      }
      this.pools.set(surface, {
        pool,
        basePath: url.pathname.replace(/\/+$/, ''),
        origin: new URL(url.origin),
      });
    }
  }

  /** Where a request of `surface` goes: the provider's origin and the path (for its span). */
  target(surface: ProviderSurface, route: UpstreamRoute = {}): { origin: URL; path: string } {
    const target = this.pools.get(surface) as { basePath: string; origin: URL };
    return {
      origin: target.origin,
      path: target.basePath + (route.upstreamPath ?? PATHS[surface] ?? ''),
    };
  }

  /**
   * Sends the request now: its `answer` resolves when the answer's headers arrive (its body then
   * streams in), or rejects when the call fails before; `abort()` stops it at any point.
   * `trace`: the W3C trace context of the call's span, when tracing is on. The agent's own
   * `traceparent` is never passed on as it is: the gateway's span stands between.
   */
  send(
    surface: ProviderSurface,
    body: Buffer,
    incoming: Record<string, string | string[] | undefined>,
    route: UpstreamRoute = {},
    trace?: Record<string, string>,
  ): ProviderCall {
    const target = this.pools.get(surface) as { pool: Pool; basePath: string };
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    for (const name of FORWARDED[surface]) {
      const value = incoming[name];
      if (typeof value === 'string') headers[name] = value;
    }
    Object.assign(headers, this.credentials(surface, incoming, route));
    if (trace) Object.assign(headers, trace);
    // `dispatch` rather than `request`: see UpstreamBody for what that saves.
    const call = new ProviderCall();
    try {
      const path = route.upstreamPath ?? PATHS[surface];
      if (path === undefined) throw new Error(`no upstream path for ${surface}`);
      target.pool.dispatch({ method: 'POST', path: target.basePath + path, headers, body }, call);
    } catch (error) {
      // undici refusing the request outright (a header it will not send) is a failed call too.
      call.onError(error as Error);
    }
    return call;
  }

  async close(): Promise<void> {
    const pools = new Set([...this.pools.values()].map(({ pool }) => pool));
    await Promise.all([...pools].map((pool) => pool.close()));
  }

  /**
   * The gateway's key when it has one, else the agent's: passed through, never stored. An
   * agent's Toolgate token in the key slot is the gateway's business only: never passed on.
   */
  private credentials(
    surface: ProviderSurface,
    incoming: Record<string, string | string[] | undefined>,
    route: UpstreamRoute,
  ) {
    const agent = (name: string) => {
      const value = incoming[name];
      if (typeof value !== 'string') return undefined;
      return toolgateTokenIn(value) ? undefined : value;
    };
    if (surface === 'gemini') {
      if (this.config.geminiApiKey) return { 'x-goog-api-key': this.config.geminiApiKey };
      const inUrl = route.apiKey && !toolgateTokenIn(route.apiKey) ? route.apiKey : undefined;
      const key = agent('x-goog-api-key') ?? inUrl;
      if (key) return { 'x-goog-api-key': key };
      // An OAuth access token instead of a key.
      const authorization = agent('authorization');
      return authorization ? { authorization } : {};
    }
    if (surface === 'openai-chat' || surface === 'openai-responses') {
      if (this.config.openaiApiKey) return { authorization: `Bearer ${this.config.openaiApiKey}` };
      const authorization = agent('authorization');
      return authorization ? { authorization } : {};
    }
    if (this.config.anthropicApiKey) return { 'x-api-key': this.config.anthropicApiKey };
    const agentKey = agent('x-api-key');
    if (agentKey) return { 'x-api-key': agentKey };
    const authorization = agent('authorization');
    return authorization ? { authorization } : {};
  }
}
