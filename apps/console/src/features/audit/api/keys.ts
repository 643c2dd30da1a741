import type { AuditFilters } from './list-audit.ts';

/** Query keys of the audit log. */
export const auditKeys = {
  all: ['audit'] as const,
  list: (filters: AuditFilters) => [...auditKeys.all, 'list', filters] as const,
};
