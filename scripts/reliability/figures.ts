import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Figures the reliability and security tests report about themselves (`pnpm test:reliability`
 * prints them as one table). A test records what it actually did — requests sent, faults it
 * injected and survived, inputs it tried, receipts it sent and found stored, secrets it found —
 * as a small JSON file in the directory `scripts/reliability.ts` names in
 * `TOOLGATE_RELIABILITY_DIR`. Without that variable (a plain `pnpm test`) nothing is written.
 */

export const FIGURES_DIR_VARIABLE = 'TOOLGATE_RELIABILITY_DIR';

export interface LoadFigures {
  requests: number;
  seconds: number;
  /** The steady rate asked for, requests per second. */
  targetRate: number;
  errors: number;
  /** Resident memory per process at the start (after warm-up) and at the end, MiB. */
  rssMiB?: Record<string, { start: number; end: number }>;
  spoolDrained: boolean;
}

export interface Figures {
  /** Which test (or run) these come from. */
  source: string;
  load?: LoadFigures;
  /** A fault put into a running system (`injected`), and later proved survived (`survived`). */
  fault?: { name: string; event: 'injected' | 'survived' };
  /** Requests with generated or hostile input sent, and how many were answered 5xx. */
  badInputs?: { tried: number; serverErrors: number };
  receipts?: { sent: number; stored: number };
  secrets?: { planted: number; places: string[]; found: number };
  /** Requests crafted to get past the gateway without a receipt, and how many did. */
  evasion?: { attempts: number; unreceipted: number };
  /**
   * Receipts the API refuses for good, sent through a running gateway: how many were bad, how
   * many ended in quarantine, how many receipts (good or bad) were lost, and whether the gateway
   * went on serving.
   */
  poisonPill?: { badRecords: number; quarantined: number; lost: number; keptServing: boolean };
  /** Requests claiming an identity without proof, and how many were bound as `verified`. */
  spoof?: { attempts: number; verifiedWithoutProof: number };
  /** One kind of tampering with stored receipts, and whether verify found it and where. */
  tamper?: { kind: string; detected: boolean; located: boolean };
}

/** Writes one figures file when the reliability run asked for them; a no-op otherwise. */
export function recordFigures(figures: Figures): void {
  // Test wiring, like the vitest globalSetup, is where reading the environment is allowed.
  const dir = process.env[FIGURES_DIR_VARIABLE];
  if (!dir) return;
  const file = join(dir, `${process.pid}-${Date.now()}-${randomBytes(4).toString('hex')}.json`);
  writeFileSync(file, JSON.stringify(figures));
}

/**
 * Marks a fault as injected now; call `survived()` once the test has proved the system came
 * through it (a failing assertion before that leaves the fault counted as not survived).
 */
export function injectFault(source: string, name: string): { survived(): void } {
  recordFigures({ source, fault: { name, event: 'injected' } });
  return { survived: () => recordFigures({ source, fault: { name, event: 'survived' } }) };
}
