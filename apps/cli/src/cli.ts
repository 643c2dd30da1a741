import { processIo } from './context.ts';
import { parseCliEnv } from './env.ts';
import { main } from './main.ts';

const io = processIo();
let env: ReturnType<typeof parseCliEnv>;
try {
  env = parseCliEnv(process.env);
} catch (error) {
  io.stderr(`error: ${(error as Error).message}\n`);
  process.exit(1);
}
process.exitCode = await main(process.argv.slice(2), { io, env });
