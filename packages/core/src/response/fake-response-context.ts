import type { Surface } from '../resources/vocabulary.ts';
import type { HostedEventInput, ResponseContext } from './response-context.ts';

/**
 * Test double of the request side's ResponseContext, shared by the response and stream tests:
 * renames provider names back (`rename`), blocks agent names (`blocked`) and hosted tools
 * (`blockedHosted`), and records every call it is asked about. Hashes are fake but
 * deterministic, so tests stay independent of the real engine.
 */
function fakeHex(text: string): string {
  let out = '';
  for (let seed = 0; seed < 8; seed++) {
    let h = 0x811c9dc5 ^ seed;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    out += (h >>> 0).toString(16).padStart(8, '0');
  }
  return out;
}

export function fakeContext(
  surface: Surface,
  options: { rename?: Record<string, string>; blocked?: string[]; blockedHosted?: string[] } = {},
) {
  const calls: Array<{ id: string; providerName: string; rawArguments: unknown }> = [];
  const hostedEvents: HostedEventInput[] = [];
  const blocked = new Set(options.blocked ?? []);
  const blockedHosted = new Set(options.blockedHosted ?? []);
  const ctx: ResponseContext = {
    surface,
    decideCall(id, providerName, rawArguments) {
      calls.push({ id, providerName, rawArguments });
      const name = options.rename?.[providerName] ?? providerName;
      const args = typeof rawArguments === 'string' ? rawArguments : JSON.stringify(rawArguments);
      const isBlocked = blocked.has(name);
      return {
        id,
        name,
        ...(name === providerName ? {} : { provider_name: providerName }),
        arguments_hash: `sha256:${fakeHex(args)}`,
        action_id: `act_${fakeHex(`${name}\0${args}`).slice(0, 16)}`,
        policy_state: isBlocked ? 'blocked' : 'allowed',
        ...(isBlocked ? { reason: 'hidden' } : {}),
      };
    },
    describeHostedEvent(event) {
      hostedEvents.push(event);
      const name = event.name ?? event.providerType;
      return {
        ...(event.id === undefined ? {} : { id: event.id }),
        capability: 'wardwright.web_search.v1',
        provider_type: event.name ? `${event.providerType}:${event.name}` : event.providerType,
        name,
        fidelity: 'provider_attested',
        policy_state: blockedHosted.has(name) ? 'blocked' : 'allowed',
        ...(event.sources === undefined ? {} : { sources: event.sources }),
        ...(event.error === undefined ? {} : { error: event.error }),
      };
    },
  };
  return { ctx, calls, hostedEvents };
}
