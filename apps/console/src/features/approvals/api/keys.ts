/** Query keys of the approvals feature. */
export const approvalKeys = {
  all: ['toolcallapprovals'] as const,
  lists: () => [...approvalKeys.all, 'list'] as const,
  detail: (name: string) => [...approvalKeys.all, 'detail', name] as const,
};
