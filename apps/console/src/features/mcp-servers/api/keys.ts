/** Query keys of the MCP servers feature. */
export const mcpServerKeys = {
  all: ['mcpservers'] as const,
  lists: () => [...mcpServerKeys.all, 'list'] as const,
  detail: (name: string) => [...mcpServerKeys.all, 'detail', name] as const,
  definition: (name: string, hash: string) =>
    [...mcpServerKeys.all, 'definition', name, hash] as const,
};
