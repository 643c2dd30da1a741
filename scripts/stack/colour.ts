/**
 * Whether `pnpm start` colours its service labels: only on a terminal, unless the environment
 * says otherwise — the same order as Node's own `tty.WriteStream.hasColors()`: FORCE_COLOR
 * decides first ('0' or 'false' turns colour off, any other value on, even into a file or a
 * pipe), then NO_COLOR (https://no-color.org: any non-empty value) or TERM=dumb turn it off, and
 * otherwise colour goes to a TTY only — so a log redirected to a file holds no escape codes.
 */
export function shouldColour(
  stream: { isTTY?: boolean },
  env: {
    FORCE_COLOR?: string | undefined;
    NO_COLOR?: string | undefined;
    TERM?: string | undefined;
  },
): boolean {
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

/** ANSI foreground colours of the services' labels. */
export const SERVICE_COLOURS = {
  api: 36,
  gateway: 35,
  console: 32,
  mock: 33,
  mcp: 34,
  start: 37,
} as const;
export type StackService = keyof typeof SERVICE_COLOURS;

/** `api     | ` — in the service's colour when `colour`. */
export function serviceLabel(service: StackService, colour: boolean): string {
  const label = `${service.padEnd(8)}|`;
  return colour ? `\u001b[${SERVICE_COLOURS[service]}m${label}\u001b[0m ` : `${label} `;
}
