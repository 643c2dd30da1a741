import {
  BadRequestError,
  type BundlePolicy,
  isJsonObject,
  MediationPolicyInput,
  parseOrThrow,
  ToolMediationBlockInput,
  ValidationError,
} from '@toolgate/core';

/**
 * Turns policy documents into bundle policies. A document is either a `MediationPolicy`
 * resource or a bare Wardwright-style `tool_mediation:` block (named `tool-mediation`).
 * Field paths in errors are those of the document (`spec.rules[2].match.name`).
 */
export function policiesFromDocuments(docs: unknown[], source: string): BundlePolicy[] {
  return docs.map((doc, index) => {
    const where = docs.length > 1 ? `${source} (document ${index + 1})` : source;
    try {
      return policyFromDocument(doc);
    } catch (error) {
      if (error instanceof ValidationError) throw prefixed(error, where);
      if (error instanceof BadRequestError) throw new BadRequestError(`${where}: ${error.message}`);
      throw error;
    }
  });
}

function prefixed(error: ValidationError, where: string): ValidationError {
  const copy = new ValidationError(error.kind, error.causes);
  copy.message = `${where}: ${error.message}`;
  return copy;
}

function policyFromDocument(doc: unknown): BundlePolicy {
  if (isJsonObject(doc) && 'tool_mediation' in doc) {
    const block = parseOrThrow(ToolMediationBlockInput, doc, 'ToolMediation');
    return { name: 'tool-mediation', generation: 1, spec: block.tool_mediation };
  }
  if (isJsonObject(doc) && doc.kind === 'MediationPolicy') {
    const policy = parseOrThrow(MediationPolicyInput, doc, 'MediationPolicy');
    return {
      name: policy.metadata.name,
      generation: policy.metadata.generation ?? 1,
      spec: policy.spec,
    };
  }
  throw new BadRequestError('expected a MediationPolicy resource or a `tool_mediation:` block');
}
