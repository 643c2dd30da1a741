/** Query keys of the identities feature. */
export const identityKeys = {
  all: ['identities'] as const,
  lists: () => [...identityKeys.all, 'list'] as const,
  tokens: (name: string) => [...identityKeys.all, 'tokens', name] as const,
};
