import { redactLogLine } from '@toolgate/core';
import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Structured logs. Credentials never reach them: authorization headers, API keys and token
 * fields are censored wherever they appear in a logged object, and so are the values a database
 * error quotes. Every line is then redacted as text on its way out (`redactLogLine`, the same
 * rules as receipts): credentials in query strings (`?token=…`, `?api_key=…`, percent-encoded
 * or not, in `req.url` or quoted in a message) and credential-shaped values anywhere.
 * `destination`: stdout unless given (tests capture the lines).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'toolgate-api' },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-api-key"]',
          'req.headers.cookie',
          '*.authorization',
          '*.token',
          '*.apiKey',
          '*.api_key',
          'token',
          // Database errors: PostgreSQL's detail quotes the failing row (`Failing row contains …`).
          'err.detail',
          'err.meta',
        ],
        censor: '[REDACTED]',
      },
      hooks: { streamWrite: redactLogLine },
    },
    destination,
  );
}
