import { readFile } from 'node:fs/promises';
import pg from 'pg';

/**
 * CPU seconds spent on a piece of work: by this process (the bench and the in-process APIs) and
 * by the PostgreSQL backends serving one database. On a machine whose cores other work shares,
 * wall time swings with the neighbours' load; CPU time is what the work itself costs, so it
 * compares variants run seconds apart far more steadily. Backends are read from `/proc` (Linux;
 * elsewhere only this process is counted), listed before and after the work: one that exits
 * mid-work loses its share (pools keep theirs open, so this hardly happens here), and the
 * server's own processes (WAL writer, checkpointer, autovacuum) are left out for every variant.
 */
export class CpuMeter {
  private constructor(private readonly admin: pg.Client) {}

  static async open(adminUrl: string): Promise<CpuMeter> {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    return new CpuMeter(admin);
  }

  /**
   * Wall and CPU seconds of `work`, whose database traffic goes to `databaseUrl`: in all, and
   * the database's share.
   */
  async measure(
    databaseUrl: string,
    work: () => Promise<unknown>,
  ): Promise<{ wall: number; cpu: number; databaseCpu: number }> {
    const database = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
    const before = await this.backendTicks(database);
    const ownBefore = process.cpuUsage();
    const start = performance.now();
    await work();
    const wall = (performance.now() - start) / 1000;
    const own = process.cpuUsage(ownBefore);
    const after = await this.backendTicks(database);
    let ticks = 0;
    for (const [pid, now] of after) ticks += now - (before.get(pid) ?? 0);
    const databaseCpu = ticks / CLOCK_TICKS;
    return { wall, cpu: (own.user + own.system) / 1e6 + databaseCpu, databaseCpu };
  }

  close(): Promise<void> {
    return this.admin.end();
  }

  private async backendTicks(database: string): Promise<Map<number, number>> {
    const { rows } = await this.admin.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1',
      [database],
    );
    const ticks = new Map<number, number>();
    for (const { pid } of rows) {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
      if (stat === undefined) continue;
      // Fields after the command (which may hold spaces, so split after its closing paren):
      // utime and stime are the 14th and 15th of the line.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    }
    return ticks;
  }
}

/** `getconf CLK_TCK`: 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;
