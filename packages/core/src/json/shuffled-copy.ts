/**
 * Test support: a deep copy whose objects list their keys in a pseudo-random order driven by
 * `seed` (xorshift32), for checking that canonical forms and hashes ignore key order.
 */
export function shuffledCopy<T>(value: T, seed: number): T {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
  const copy = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(copy);
    if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [entries[i], entries[j]] = [
          entries[j] as [string, unknown],
          entries[i] as [string, unknown],
        ];
      }
      // fromEntries defines own properties, so a "__proto__" key stays an ordinary key.
      return Object.fromEntries(entries.map(([k, child]) => [k, copy(child)]));
    }
    return v;
  };
  return copy(value) as T;
}
