/** Query keys of the hosted tools feature. */
export const hostedToolKeys = {
  all: ['hostedtools'] as const,
  lists: () => [...hostedToolKeys.all, 'list'] as const,
  detail: (name: string) => [...hostedToolKeys.all, 'detail', name] as const,
};
