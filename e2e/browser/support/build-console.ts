import { ensureBuilt } from '@toolgate/console/server';

/**
 * Vitest globalSetup: builds the console once (when `dist/` is missing or stale) before the test
 * files start, so files running in parallel never race to build it.
 */
export default async function setup(): Promise<void> {
  await ensureBuilt({ log: (line) => process.stdout.write(`${line}\n`) });
}
