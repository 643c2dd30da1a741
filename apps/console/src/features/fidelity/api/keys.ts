/** Query keys of the fidelity feature. */
export const fidelityKeys = {
  all: ['fidelity'] as const,
  contracts: () => [...fidelityKeys.all, 'contracts'] as const,
  profiles: () => [...fidelityKeys.all, 'profiles'] as const,
};
