import type { HostedCallEvidence, HostedEvidence, Receipt } from '@toolgate/core';
import { HashBadge, Pill, type Tone } from '../../../shared/ui/badges.tsx';
import { Section } from '../../../shared/ui/page.tsx';

/**
 * The tool loop of a request (receipt `hosted`): each round the gateway ran itself — when it
 * started after the request came in, how long its calls took and the provider call after it,
 * each call's tool, outcome, HTTP status, duration, argument and result hashes and the result
 * paths redacted — drawn as a timeline on one time axis, then the budget and why it stopped.
 */

const OUTCOME_TONE: Record<HostedCallEvidence['outcome'], Tone> = {
  ok: 'good',
  error: 'bad',
  timeout: 'warn',
  unavailable: 'bad',
  too_large: 'warn',
  bad_response: 'bad',
  refused: 'bad',
};

const EXHAUSTED: Record<NonNullable<HostedEvidence['exhausted']>, string> = {
  max_calls: 'the most hosted calls per request',
  max_rounds: 'the most hosted rounds per request',
  max_added_latency: 'the most latency hosted rounds may add',
};

/** `840 ms`, `1.2 s`, `2 min 5 s`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function HostedRoundsSection({ receipt }: { receipt: Receipt }) {
  const hosted = receipt.hosted;
  if (!hosted) return null;
  const { rounds, budget, exhausted } = hosted;
  const calls = rounds.reduce((sum, round) => sum + round.calls.length, 0);
  // One axis for every round: from the request's arrival to the end of the last provider call.
  const span = Math.max(
    1,
    ...rounds.map((round) => round.started_ms + round.duration_ms + (round.upstream_ms ?? 0)),
  );
  const pct = (ms: number) => `${Math.min(100, (ms / span) * 100).toFixed(2)}%`;
  return (
    <Section title={`Hosted rounds (${rounds.length})`}>
      <dl className="facts">
        <dt>Calls</dt>
        <dd>
          {calls} of at most {budget.max_calls}
        </dd>
        <dt>Rounds</dt>
        <dd>
          {rounds.length} of at most {budget.max_rounds}
        </dd>
        <dt>Added latency</dt>
        <dd>at most {formatMs(budget.max_added_latency_ms)}</dd>
        {exhausted ? (
          <>
            <dt>Budget</dt>
            <dd data-testid="hosted-exhausted">
              <Pill tone="warn">exhausted: {exhausted}</Pill> The loop reached{' '}
              {EXHAUSTED[exhausted]}; the agent got the model’s last answer with a note.
            </dd>
          </>
        ) : null}
      </dl>
      {rounds.length === 0 ? (
        <p className="muted">The model called no hosted tool.</p>
      ) : (
        <ol className="hosted-timeline" aria-label="Hosted rounds timeline">
          {rounds.map((round) => (
            <li key={round.round} className="hosted-round">
              <h3>
                Round {round.round}{' '}
                <span className="muted">
                  started at +{formatMs(round.started_ms)} · calls {formatMs(round.duration_ms)}
                  {round.upstream_ms !== undefined
                    ? ` · provider ${formatMs(round.upstream_ms)}`
                    : ''}
                  {round.usage
                    ? ` · tokens ${round.usage.input_tokens ?? '?'} in / ${round.usage.output_tokens ?? '?'} out`
                    : ''}
                </span>
              </h3>
              <div className="hosted-axis" aria-hidden="true">
                <span
                  className="hosted-bar hosted-bar-calls"
                  style={{ left: pct(round.started_ms), width: pct(round.duration_ms) }}
                />
                {round.upstream_ms !== undefined ? (
                  <span
                    className="hosted-bar hosted-bar-upstream"
                    style={{
                      left: pct(round.started_ms + round.duration_ms),
                      width: pct(round.upstream_ms),
                    }}
                  />
                ) : null}
              </div>
              <div className="table-wrap">
                <table className="table">
                  <caption className="sr-only">Calls of round {round.round}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Tool</th>
                      <th scope="col">Outcome</th>
                      <th scope="col">Status</th>
                      <th scope="col">Duration</th>
                      <th scope="col">Arguments</th>
                      <th scope="col">Result</th>
                      <th scope="col">Redacted</th>
                    </tr>
                  </thead>
                  <tbody>
                    {round.calls.map((call) => (
                      <tr key={call.id}>
                        <th scope="row">
                          <code>{call.name}</code>
                          {call.tool !== call.name ? (
                            <span className="muted"> ({call.tool})</span>
                          ) : null}
                        </th>
                        <td>
                          <Pill tone={OUTCOME_TONE[call.outcome]}>{call.outcome}</Pill>
                        </td>
                        <td>{call.status ?? <span className="muted">—</span>}</td>
                        <td>{formatMs(call.duration_ms)}</td>
                        <td>
                          <HashBadge hash={call.arguments_hash} label="arguments" />
                        </td>
                        <td>
                          {call.result_hash ? (
                            <HashBadge hash={call.result_hash} label="result" />
                          ) : (
                            <span className="muted">nothing came back</span>
                          )}
                        </td>
                        <td>
                          {call.redacted_paths && call.redacted_paths.length > 0 ? (
                            call.redacted_paths.map((path) => (
                              <code key={path} className="hosted-path">
                                {path}
                              </code>
                            ))
                          ) : (
                            <span className="muted">none</span>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}
