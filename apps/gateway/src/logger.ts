import { scrubSecrets } from '@toolgate/core';
import pino, { type Logger } from 'pino';

/**
 * Structured logs; credentials (agent keys, gateway token) are censored wherever they appear:
 * by path for the known places, and by shape (`scrubSecrets`, the redaction receipts use) in
 * every message, error and top-level text field, since an error can quote what an agent or a
 * provider sent.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'toolgate-gateway' },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'headers.authorization',
        'headers["x-api-key"]',
        '*.authorization',
        '*.apiKey',
        '*.api_key',
        '*.token',
      ],
      censor: '[REDACTED]',
    },
    serializers: { err: scrubbedError },
    formatters: { log: scrubFields },
    hooks: {
      logMethod(args, method) {
        method.apply(
          this,
          args.map((arg) => (typeof arg === 'string' ? scrubSecrets(arg) : arg)) as typeof args,
        );
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

function scrubbedError(error: Error): pino.SerializedError {
  const serialized = pino.stdSerializers.err(error);
  return scrubFields(serialized as unknown as Record<string, unknown>) as pino.SerializedError;
}

/** `fields` with every text value (one level deep) scrubbed of secret-shaped parts. */
function scrubFields(fields: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key in fields) {
    const value = fields[key];
    if (typeof value !== 'string') continue;
    const scrubbed = scrubSecrets(value);
    if (scrubbed === value) continue;
    out ??= { ...fields };
    out[key] = scrubbed;
  }
  return out ?? fields;
}
