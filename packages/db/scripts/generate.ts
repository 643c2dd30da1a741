/**
 * `prisma generate` for prisma/schema.prisma; runs on `pnpm install` (root `postinstall`) and
 * as `pnpm db:generate`. Works offline: nothing here needs Prisma's downloadable engines.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const prismaCli = createRequire(import.meta.url).resolve('prisma/build/index.js');

const result = spawnSync(
  process.execPath,
  [prismaCli, 'generate', '--config', 'prisma.config.ts'],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      // The Prisma CLI makes sure the native schema engine is on disk before running any
      // command, downloading it when missing, although `generate` never runs it: offline that
      // download fails the command. Pointing it at any existing executable (node itself) skips
      // the download. The client itself needs no engine: Prisma 7 compiles queries in Wasm.
      PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
      // No update check / telemetry call to Prisma's servers on every install.
      CHECKPOINT_DISABLE: '1',
    },
  },
);
process.exit(result.status ?? 1);
