import type { Receipt } from '@toolgate/core';
import { Link } from 'react-router';
import { HashBadge, Pill } from '../../../shared/ui/badges.tsx';
import { Section } from '../../../shared/ui/page.tsx';
import { useToolLinks } from '../api/get-tool-links.ts';
import { formatElapsed, linkedReceipts, mayHaveToolLinks } from './tool-links.ts';

/** Links to the receipts on the other side of a call or result, or what to say when none. */
function OtherSide(props: { ids: string[]; arrow: 'to' | 'from'; none: string; pending: boolean }) {
  if (props.pending) return <span className="muted">…</span>;
  if (props.ids.length === 0) return <span className="muted">{props.none}</span>;
  return (
    <>
      {props.ids.map((id) => (
        <Link key={id} to={`/receipts/${encodeURIComponent(id)}`} title={id}>
          {props.arrow === 'to' ? 'result →' : '← call'}
        </Link>
      ))}
    </>
  );
}

/** For a call of this receipt: the receipt(s) carrying its result, from the agent's next turn. */
export function CallResultLink({ receipt, callId }: { receipt: Receipt; callId: string }) {
  const links = useToolLinks(receipt.id, mayHaveToolLinks(receipt));
  return (
    <OtherSide
      ids={linkedReceipts(links.data?.items, 'call', callId)}
      arrow="to"
      none="no result yet"
      pending={links.isLoading}
    />
  );
}

/** The results of earlier calls the agent sent back with this request. */
export function ToolResultsSection({ receipt: r }: { receipt: Receipt }) {
  const results = r.tool_results ?? [];
  const links = useToolLinks(r.id, mayHaveToolLinks(r));
  if (results.length === 0) return null;
  return (
    <Section title={`Tool results (${results.length})`}>
      <table className="table">
        <caption className="sr-only">Tool results</caption>
        <thead>
          <tr>
            <th scope="col">Call id</th>
            <th scope="col">Call</th>
            <th scope="col">Result hash</th>
            <th scope="col">Outcome</th>
            <th scope="col">Elapsed</th>
          </tr>
        </thead>
        <tbody>
          {results.map((result, index) => (
            <tr key={`${index}:${result.tool_call_id}`}>
              <th scope="row">
                <code>{result.tool_call_id}</code>
              </th>
              <td>
                {result.action_id === undefined ? (
                  <span className="muted" title="The conversation held no call with this id">
                    unknown call
                  </span>
                ) : (
                  <OtherSide
                    ids={linkedReceipts(links.data?.items, 'result', result.tool_call_id)}
                    arrow="from"
                    none="call not on record"
                    pending={links.isLoading}
                  />
                )}
              </td>
              <td>
                <HashBadge hash={result.result_hash} label="result" />
              </td>
              <td>
                <Pill tone={result.is_error ? 'bad' : 'good'}>
                  {result.is_error ? 'error' : 'ok'}
                </Pill>
              </td>
              <td
                title={
                  result.elapsed_ms === null
                    ? 'This gateway did not release the call (another replica, a restart)'
                    : undefined
                }
              >
                {formatElapsed(result.elapsed_ms)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}
