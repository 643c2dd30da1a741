import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { forbiddenEndpointAddress } from '@toolgate/core';

/**
 * The gateway calls hosted tools' endpoints from inside the operator's network, so an endpoint
 * must not be a way to reach what only the gateway's host may: the cloud metadata service
 * (169.254.169.254, fd00:ec2::254) and other link-local addresses. Checked where the address is
 * known: a literal IP in the URL before connecting, a name at every DNS lookup of a connection
 * (so a name that later resolves to 169.254.x.x is refused too). Loopback and private ranges are
 * allowed: operators' endpoints are internal services (docs/security.md). The addresses are
 * core's `forbiddenEndpointAddress`, the API's check at apply time.
 */

/** The error a refused lookup fails the connection with (outcome `refused`). */
export class ForbiddenAddressError extends Error {
  readonly code = 'TOOLGATE_FORBIDDEN_ADDRESS';
  constructor(host: string, why: string) {
    super(`${host} resolves to ${why}, which hosted tools may not call`);
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** How names are resolved: `dns.lookup` with `all: true`. */
export type Resolve = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** A `lookup` for `net.connect` that refuses link-local and metadata answers of `resolve`. */
export function createGuardedLookup(resolve: Resolve = dnsLookup as unknown as Resolve) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true }, (error, list) => {
      if (error) {
        callback(error, []);
        return;
      }
      for (const entry of list) {
        const why = forbiddenEndpointAddress(entry.address);
        if (why !== undefined) {
          callback(new ForbiddenAddressError(hostname, why) as NodeJS.ErrnoException, []);
          return;
        }
      }
      if (options.all) {
        callback(null, list);
        return;
      }
      const first = list[0];
      if (first === undefined) {
        callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
        return;
      }
      callback(null, first.address, first.family);
    });
  };
}

/** `dns.lookup` for `net.connect`, refusing link-local answers. */
export const guardedLookup = createGuardedLookup();
