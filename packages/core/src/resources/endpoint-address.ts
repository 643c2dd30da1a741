/**
 * Addresses a gateway must not call on an operator's behalf (docs/security.md): the cloud
 * metadata service (169.254.169.254, fd00:ec2::254) and every other link-local address, which
 * only the gateway's own host should reach. Loopback and private ranges stay allowed: operators'
 * endpoints are internal services. Used by the API when a HostedTool is applied and by the
 * gateway before connecting and at every DNS lookup.
 */

/** Host names of cloud metadata services. */
const METADATA_NAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
]);

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/;

/**
 * Why `host` (a URL's hostname, brackets and all, or an address as DNS answered it) may not be
 * called, or undefined when it may.
 */
export function forbiddenEndpointAddress(host: string): string | undefined {
  let address = host.toLowerCase().replace(/\.$/, '');
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
  if (METADATA_NAMES.has(address)) return 'a cloud metadata service';
  // IPv4-mapped IPv6, as written (`::ffff:169.254.169.254`) or as URLs normalize it (`::ffff:a9fe:a9fe`).
  const mapped = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):[0-9a-f]{1,4})$/.exec(address);
  if (mapped) {
    if (mapped[1] !== undefined) address = mapped[1];
    else if (Number.parseInt(mapped[2] as string, 16) === 0xa9fe) address = '169.254.0.0';
  }
  const v4 = IPV4.exec(address);
  if (v4) {
    return v4[1] === '169' && v4[2] === '254'
      ? 'a link-local address (169.254.0.0/16, the cloud metadata service)'
      : undefined;
  }
  if (address === 'fd00:ec2::254') return 'the cloud metadata address';
  if (/^fe[89ab][0-9a-f]:/.test(address)) return 'a link-local address (fe80::/10)';
  return undefined;
}
