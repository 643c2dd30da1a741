import { useRef, useState } from 'react';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import {
  download,
  EXPORT_MAX_ROWS,
  type ExportFormat,
  fetchForExport,
  toCsv,
  toJsonLines,
} from '../api/export-receipts.ts';
import type { ReceiptFilters } from '../api/list-receipts.ts';

/** Export the filtered list as JSON Lines or CSV, with progress, a cancel and the cap said. */
export function ExportMenu(props: { filters: ReceiptFilters }) {
  const client = useApiClient();
  const [state, setState] = useState<
    { kind: 'idle' } | { kind: 'running'; rows: number } | { kind: 'done'; message: string }
  >({ kind: 'idle' });
  const abort = useRef<AbortController | null>(null);
  const run = async (format: ExportFormat) => {
    const controller = new AbortController();
    abort.current = controller;
    setState({ kind: 'running', rows: 0 });
    try {
      const { rows, truncated } = await fetchForExport(client, props.filters, {
        signal: controller.signal,
        onProgress: (count) => setState({ kind: 'running', rows: count }),
      });
      const stamp = new Date().toISOString().replaceAll(':', '-').slice(0, 19);
      if (format === 'csv') download(toCsv(rows), `receipts-${stamp}.csv`, 'text/csv');
      else download(toJsonLines(rows), `receipts-${stamp}.jsonl`, 'application/x-ndjson');
      setState({
        kind: 'done',
        message: `Exported ${rows.length.toLocaleString('en-US')} receipts${
          truncated
            ? ` (the first ${EXPORT_MAX_ROWS.toLocaleString('en-US')}: narrow the filters for the rest)`
            : ''
        }.`,
      });
    } catch (error) {
      setState({
        kind: 'done',
        message: controller.signal.aborted
          ? 'Export cancelled.'
          : `Export failed: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  };
  return (
    <div className="export-menu">
      <span className="muted">Export:</span>
      <button
        type="button"
        className="button"
        disabled={state.kind === 'running'}
        onClick={() => void run('jsonl')}
      >
        JSON Lines
      </button>
      <button
        type="button"
        className="button"
        disabled={state.kind === 'running'}
        onClick={() => void run('csv')}
      >
        CSV
      </button>
      {state.kind === 'running' ? (
        <button
          type="button"
          className="button button-quiet"
          onClick={() => abort.current?.abort()}
        >
          Cancel
        </button>
      ) : null}
      <span role="status" aria-live="polite" className="muted">
        {state.kind === 'running'
          ? `Fetching… ${state.rows.toLocaleString('en-US')} receipts`
          : state.kind === 'done'
            ? state.message
            : ''}
      </span>
    </div>
  );
}
