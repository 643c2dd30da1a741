/** Pino-compatible: the gateway passes its pino logger (or a child of it). */
export interface SpoolLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export const silentLogger: SpoolLogger = { info() {}, warn() {}, error() {} };
