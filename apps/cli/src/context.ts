import type { CliEnv } from './env.ts';

/** Where a command's output goes: results and progress on stdout, errors on stderr. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** All of standard input (for `login --token-stdin`). */
  readStdin(): Promise<string>;
}

/** Everything a command needs from outside: injected, so tests run `main` in-process. */
export interface CliContext {
  io: CliIo;
  env: CliEnv;
}

/** The process's own streams. */
export function processIo(): CliIo {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}
