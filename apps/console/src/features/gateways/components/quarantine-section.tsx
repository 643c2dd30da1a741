import type { Gateway } from '@toolgate/core';
import { Pill, Time } from '../../../shared/ui/badges.tsx';
import { Section } from '../../../shared/ui/page.tsx';
import { Empty } from '../../../shared/ui/states.tsx';

/** How many receipts a gateway holds in quarantine, for its row in the fleet table. */
export function QuarantineCount({ gateway }: { gateway: Gateway }) {
  const count = gateway.status?.receiptQuarantine?.count;
  if (count === undefined) return <>—</>;
  if (count === 0) return <>0</>;
  return (
    <Pill tone="warn" title="Receipts the API refused for good; see Quarantined receipts below">
      {count}
    </Pill>
  );
}

/**
 * The receipts the API refused for good, per gateway: the gateway keeps each in its quarantine
 * file and reports the count and the newest entries; a stand-in holds its place in the chain.
 */
export function QuarantineSection({ gateways, now }: { gateways: Gateway[]; now: number }) {
  const holding = gateways.filter((g) => (g.status?.receiptQuarantine?.count ?? 0) > 0);
  return (
    <Section title="Quarantined receipts">
      {holding.length === 0 ? (
        <Empty title="No quarantined receipts">
          Every receipt the gateways reported reached the API.
        </Empty>
      ) : (
        holding.map((gateway) => {
          const quarantine = gateway.status?.receiptQuarantine;
          const count = quarantine?.count ?? 0;
          const recent = quarantine?.recent ?? [];
          const name = gateway.metadata.name;
          return (
            <div className="table-wrap" key={name}>
              <table className="table">
                <caption>
                  {name}: {count} quarantined receipt{count === 1 ? '' : 's'}
                  {recent.length < count ? ` (the newest ${recent.length} shown)` : ''}; held in the
                  gateway's rejected-receipts.ndjson
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Receipt</th>
                    <th scope="col">Reason</th>
                    <th scope="col">Message</th>
                    <th scope="col">Size</th>
                    <th scope="col">Quarantined</th>
                  </tr>
                </thead>
                <tbody>
                  {recent.map((entry) => (
                    <tr key={`${entry.id} ${entry.hash}`}>
                      <th scope="row">
                        <code>{entry.id}</code>
                      </th>
                      <td>
                        <Pill tone="bad">{entry.reason}</Pill>
                      </td>
                      <td>{entry.message ?? '—'}</td>
                      <td>{entry.bytes} B</td>
                      <td>
                        <Time value={entry.quarantinedAt} now={now} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          );
        })
      )}
    </Section>
  );
}
