import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';

/**
 * Page state kept in the query string, so every filtered view is a URL one can share. Only the
 * given keys are read; empty values are dropped from the URL.
 */
export function useUrlState<K extends string>(
  keys: ReadonlyArray<K>,
): [Partial<Record<K, string>>, (next: Partial<Record<K, string | undefined>>) => void] {
  const [params, setParams] = useSearchParams();
  const values = useMemo(() => {
    const out: Partial<Record<K, string>> = {};
    for (const key of keys) {
      const value = params.get(key);
      if (value) out[key] = value;
    }
    return out;
  }, [params, keys]);
  const update = useCallback(
    (next: Partial<Record<K, string | undefined>>) => {
      setParams(
        (current) => {
          const merged = new URLSearchParams(current);
          for (const [key, value] of Object.entries(next) as Array<[K, string | undefined]>) {
            if (value) merged.set(key, value);
            else merged.delete(key);
          }
          return merged;
        },
        { replace: false },
      );
    },
    [setParams],
  );
  return [values, update];
}
