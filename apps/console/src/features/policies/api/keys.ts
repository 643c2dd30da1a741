/** Query keys of the policies feature; mutations invalidate through these. */
export const policyKeys = {
  all: ['policies'] as const,
  lists: () => [...policyKeys.all, 'list'] as const,
  details: () => [...policyKeys.all, 'detail'] as const,
  detail: (name: string) => [...policyKeys.details(), name] as const,
  revisions: (name: string) => [...policyKeys.detail(name), 'revisions'] as const,
  diff: (name: string, from: number, to: number) =>
    [...policyKeys.detail(name), 'diff', from, to] as const,
  /** What the preview picks from: gateways to run on, recent receipts to replay. */
  previewGateways: () => [...policyKeys.all, 'preview-gateways'] as const,
  previewReceipts: (toolContains: string) =>
    [...policyKeys.all, 'preview-receipts', toolContains] as const,
  validations: () => [...policyKeys.all, 'validate'] as const,
  validation: (name: string | undefined, text: string) =>
    [...policyKeys.validations(), name ?? '', text] as const,
};
