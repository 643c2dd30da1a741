const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
const QUIET_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'service', 'msg', 'reqId']);

/**
 * Makes a service's pino JSON lines readable for `pnpm start`: `LEVEL message key=value`, and
 * one `GET /path → 200 (12 ms)` line per request instead of two JSON objects. Lines that are not
 * pino JSON pass through unchanged. One formatter per service (it pairs request lines by id).
 */
export function createLogFormatter(): (line: string) => string | undefined {
  const requests = new Map<string, string>();
  return (line) => {
    if (!line.startsWith('{')) return line;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return line;
    }
    if (typeof entry.msg !== 'string' || typeof entry.level !== 'number') return line;
    const level = LEVELS[entry.level] ?? String(entry.level);
    const reqId = typeof entry.reqId === 'string' ? entry.reqId : undefined;
    const req = entry.req as { method?: string; url?: string } | undefined;
    if (entry.msg === 'incoming request' && reqId && req) {
      requests.set(reqId, `${req.method ?? ''} ${req.url ?? ''}`);
      if (requests.size > 1000) requests.delete(requests.keys().next().value as string);
      return undefined;
    }
    const res = entry.res as { statusCode?: number } | undefined;
    if (entry.msg === 'request completed' && res) {
      const request = (reqId && requests.get(reqId)) || 'request';
      if (reqId) requests.delete(reqId);
      const ms = typeof entry.responseTime === 'number' ? Math.round(entry.responseTime) : '?';
      return `${level === 'INFO' ? '' : `${level} `}${request} → ${res.statusCode ?? '?'} (${ms} ms)`;
    }
    const fields = Object.entries(entry)
      .filter(([key]) => !QUIET_FIELDS.has(key))
      .map(([key, value]) => `${key}=${describe(value)}`);
    return [level.padEnd(5), entry.msg, ...fields].join(' ');
  };
}

function describe(value: unknown): string {
  if (typeof value === 'string') return /\s/.test(value) ? JSON.stringify(value) : value;
  const error = value as { message?: unknown; type?: unknown } | null;
  if (error && typeof error === 'object' && typeof error.message === 'string') {
    return JSON.stringify(
      `${typeof error.type === 'string' ? `${error.type}: ` : ''}${error.message}`,
    );
  }
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
