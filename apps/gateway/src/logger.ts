import { redactLogLine } from '@toolgate/core';
import pino, { type Logger } from 'pino';

/**
 * Structured logs; credentials (agent keys, gateway token) are censored wherever they appear,
 * and every line is redacted as text on its way out, query strings included (`redactLogLine`).
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'toolgate-gateway' },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'req.headers["x-goog-api-key"]',
        'headers.authorization',
        'headers["x-api-key"]',
        'headers["x-goog-api-key"]',
        '*.authorization',
        '*.apiKey',
        '*.api_key',
        '*.token',
      ],
      censor: '[REDACTED]',
    },
    hooks: { streamWrite: redactLogLine },
  };
  return destination ? pino(options, destination) : pino(options);
}
