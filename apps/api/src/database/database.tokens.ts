/** The PostgreSQL URL the API runs against (injected; only main.ts decides it). */
export const DATABASE_URL = Symbol('DATABASE_URL');
/** Parsed API configuration. */
export const API_ENV = Symbol('API_ENV');
/** The root pino logger. */
export const LOGGER = Symbol('LOGGER');
