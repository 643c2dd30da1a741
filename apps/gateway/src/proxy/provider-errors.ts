/**
 * Errors in the shape the agent's SDK expects from its provider. One definition, in core, shared
 * with the sanitizer that passes a provider's own error answers on (`sanitizeProviderError`).
 */
export { providerError, providerErrorJson } from '@toolgate/core';
