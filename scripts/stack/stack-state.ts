import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';

/**
 * What `pnpm start` keeps under `<data>/stack/state.json` (mode 0600, like a kubeconfig): the
 * operator token the API printed on its first start (so every start can print it again), the
 * running gateway's own token, and the demo agent's token. Local development data only.
 */
export const StackState = z.object({
  operatorToken: z.string().optional(),
  gatewayToken: z.string().optional(),
  agentToken: z.string().optional(),
  urls: z
    .object({
      api: z.string(),
      gateway: z.string(),
      console: z.string(),
      mock: z.string(),
      /** Absent in a state file written before the demo MCP server was part of the stack. */
      mcp: z.string().optional(),
    })
    .optional(),
});
export type StackState = z.infer<typeof StackState>;

export function stackStatePath(dataDir: string): string {
  return join(dataDir, 'stack', 'state.json');
}

export async function readStackState(dataDir: string): Promise<StackState> {
  let text: string;
  try {
    text = await readFile(stackStatePath(dataDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  return StackState.parse(JSON.parse(text));
}

/** Written atomically with 0600 before it holds anything: never readable by other users. */
export async function writeStackState(dataDir: string, state: StackState): Promise<void> {
  const path = stackStatePath(dataDir);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}
