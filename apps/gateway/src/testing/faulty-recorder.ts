import { CanonicalJsonError, type JsonObject } from '@toolgate/core';
import type {
  ReceiptRecorder,
  ReceiptSink,
  ReceiptToRecord,
} from '../receipts/receipt-recorder.ts';
import { SpoolFailedError } from '../spool/errors.ts';

export type RecorderMode = 'pass' | 'gate' | 'spool-fails' | 'build-fails-once';

/**
 * The real recorder on the test gateway's spool, with faults switched on per test: `gate` holds
 * every receipt until `release()`, `spool-fails` fails spooling, `build-fails-once` fails
 * building the next receipt.
 */
export class FaultyRecorder implements ReceiptSink {
  inner?: ReceiptRecorder;
  mode: RecorderMode = 'pass';
  private open?: () => void;
  gate = Promise.resolve();

  close(): void {
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }

  release(): void {
    this.open?.();
  }

  full(): boolean {
    return false;
  }

  async record(input: ReceiptToRecord, schemas: ReadonlyMap<string, JsonObject>): Promise<string> {
    if (this.mode === 'gate') await this.gate;
    if (this.mode === 'spool-fails') throw new SpoolFailedError(new Error('EIO: disk gone'));
    if (this.mode === 'build-fails-once') {
      this.mode = 'pass';
      throw new CanonicalJsonError('Cannot canonicalize model: lone surrogate', 'model');
    }
    return (this.inner as ReceiptRecorder).record(input, schemas);
  }
}
