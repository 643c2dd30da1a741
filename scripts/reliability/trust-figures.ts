import type { Figures } from './figures.ts';

/**
 * The trust rows of `pnpm test:reliability`: receipt evasion, poison-pill receipts, identity
 * spoofing and tampering with stored receipts. Every kind of tampering in {@link TAMPER_KINDS}
 * must have been tried, detected and located.
 */
export const TAMPER_KINDS = [
  'tool set edit',
  'tool set delete',
  'list column edit',
  'body edit',
  'reorder',
  'delete',
] as const;

export function summarizeTrust(all: Figures[]): {
  rows: Array<[string, string]>;
  problems: string[];
} {
  const problems: string[] = [];
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const evasion = all.flatMap((f) => (f.evasion ? [f.evasion] : []));
  const pills = all.flatMap((f) => (f.poisonPill ? [f.poisonPill] : []));
  const spoofs = all.flatMap((f) => (f.spoof ? [f.spoof] : []));
  const tampers = all.flatMap((f) => (f.tamper ? [f.tamper] : []));

  const attempts = sum(evasion.map((e) => e.attempts));
  const unreceipted = sum(evasion.map((e) => e.unreceipted));
  if (attempts === 0) problems.push('no receipt evasion was attempted');
  if (unreceipted > 0) problems.push(`${unreceipted} requests got through without a receipt`);

  const bad = sum(pills.map((p) => p.badRecords));
  const quarantined = sum(pills.map((p) => p.quarantined));
  const lost = sum(pills.map((p) => p.lost));
  const stalled = pills.filter((p) => !p.keptServing).length;
  if (pills.length === 0) problems.push('no poison-pill receipt was sent');
  if (quarantined !== bad) problems.push(`poison pills: ${bad} bad but ${quarantined} quarantined`);
  if (lost > 0) problems.push(`poison pills: ${lost} receipts lost`);
  if (stalled > 0) problems.push(`poison pills: the gateway stopped serving in ${stalled} runs`);

  const spoofAttempts = sum(spoofs.map((s) => s.attempts));
  const spoofed = sum(spoofs.map((s) => s.verifiedWithoutProof));
  if (spoofAttempts === 0) problems.push('no identity spoof was attempted');
  if (spoofed > 0) problems.push(`${spoofed} spoofed identities were bound as verified`);

  const tried = new Set(tampers.map((t) => t.kind));
  const missed = tampers.filter((t) => !t.detected || !t.located).map((t) => t.kind);
  const untried = TAMPER_KINDS.filter((kind) => !tried.has(kind));
  if (untried.length > 0) problems.push(`tampering not tried: ${untried.join(', ')}`);
  if (missed.length > 0) problems.push(`tampering missed or not located: ${missed.join(', ')}`);
  const caught = tampers.filter((t) => t.detected && t.located).length;

  return {
    rows: [
      ['receipt evasion attempts', `${attempts} (${unreceipted} unreceipted)`],
      [
        'poison-pill receipts',
        `${bad} bad, ${quarantined} quarantined, ${lost} lost, gateway ${stalled ? 'STALLED' : 'kept serving'}`,
      ],
      ['identity spoof attempts', `${spoofAttempts} (${spoofed} verified without proof)`],
      [
        'tampering detected and located',
        `${caught} / ${tampers.length} (${tried.size} of ${TAMPER_KINDS.length} kinds)`,
      ],
    ],
    problems,
  };
}
