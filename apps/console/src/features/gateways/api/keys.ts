/** Query keys of the gateways feature. */
export const gatewayKeys = {
  all: ['gateways'] as const,
  lists: () => [...gatewayKeys.all, 'list'] as const,
  sync: () => [...gatewayKeys.all, 'sync'] as const,
  history: (name: string) => [...gatewayKeys.all, 'history', name] as const,
  detail: (name: string) => [...gatewayKeys.all, 'detail', name] as const,
};
