/**
 * `https://search.internal.example:8443/v1/search?key=…` → `search.internal.example:8443`: the list
 * shows where calls go, not a path or query that may carry ids.
 */
export function endpointHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
