import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ROUTES } from '../src/routes/index.ts';
import { renderRouteIndex } from '../src/routes/route-index-of.ts';

/** Writes src/routes/route-index.ts from ROUTES, formatted as the repository's Biome wants it. */
const target = fileURLToPath(new URL('../src/routes/route-index.ts', import.meta.url));
await writeFile(target, renderRouteIndex(ROUTES));
execFileSync('pnpm', ['exec', 'biome', 'format', '--write', target], { stdio: 'inherit' });
