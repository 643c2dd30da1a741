import pino, { type Logger } from 'pino';

/**
 * Structured logs. Credentials never reach them: authorization headers, API keys and token
 * fields are censored wherever they appear in a logged object.
 */
export function createLogger(level: string): Logger {
  return pino({
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
      ],
      censor: '[REDACTED]',
    },
  });
}
