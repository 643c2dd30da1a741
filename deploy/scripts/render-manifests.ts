import { writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { MANIFESTS_FILE, renderManifests } from '../src/manifests.ts';

/** `pnpm --filter @toolgate/deploy manifests`: renders deploy/kubernetes/toolgate.yaml. */
await writeFile(MANIFESTS_FILE, await renderManifests());
process.stdout.write(`wrote ${relative(process.cwd(), MANIFESTS_FILE)}\n`);
