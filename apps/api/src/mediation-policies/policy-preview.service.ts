import { Inject, Injectable } from '@nestjs/common';
import type { MediationEffect, PreviewInput } from '@toolgate/contract';
import {
  type MediationPolicySpec,
  MediationPolicySpec as MediationPolicySpecSchema,
  NotFoundError,
  parseOrThrow,
  type Receipt,
  ruleIdentityOfReceipt,
  type Surface,
  ValidationError,
} from '@toolgate/core';
import { ReceiptsRepository } from '../receipts/receipts.repository.ts';
import { SchemasRepository } from '../receipts/schemas.repository.ts';
import { mediationEffect } from './mediation-effect.ts';

/** Runs draft or historical policies against a sample request or a recorded receipt's tools. */
@Injectable()
export class PolicyPreviewService {
  constructor(
    @Inject(ReceiptsRepository) private readonly receipts: ReceiptsRepository,
    @Inject(SchemasRepository) private readonly schemas: SchemasRepository,
  ) {}

  /** A draft spec (not stored): errors name `spec.…` fields. */
  async preview(spec: unknown, input: PreviewInput): Promise<MediationEffect> {
    const parsed = parseOrThrow(MediationPolicySpecSchema, spec, 'MediationPolicy', ['spec']);
    return this.effectOf(parsed, input);
  }

  async effectOf(spec: MediationPolicySpec, input: PreviewInput): Promise<MediationEffect> {
    if (input.request) {
      return mediationEffect({
        spec,
        request: input.request,
        ...(input.surface ? { surface: input.surface } : {}),
      });
    }
    const replay = await this.requestFromReceipt(input.receiptId as string);
    // The recorded caller, as proven as it was: identity-scoped rules replay as they would apply.
    const identity = ruleIdentityOfReceipt(replay.identity, spec.headerClaims ?? 'untrusted');
    return mediationEffect({ spec, ...replay, identity });
  }

  /**
   * Rebuilds a request from a receipt's original tools, fetched by hash from the schema store:
   * what the agent sent, ready to be mediated by another policy.
   */
  private async requestFromReceipt(id: string) {
    const found = await this.receipts.find(id);
    if (!found) throw new NotFoundError('Receipt', id);
    const receipt: Receipt = found.receipt;
    const originals =
      receipt.wardwright_tool_mediation?.original_tools ??
      receipt.tools.map((t) => ({
        declared_by: t.declared_by,
        name: t.name,
        type: t.type,
        schema_hash: t.schema_hash,
      }));
    const stored = await this.schemas.getMany(originals.map((t) => t.schema_hash));
    const request: Record<string, unknown> & { tools: unknown[] } = {
      model: receipt.model,
      messages: [],
      tools: [],
    };
    const hostedTools: Record<string, unknown>[] = [];
    for (const tool of originals) {
      const declaration = stored.get(tool.schema_hash);
      if (!declaration) {
        throw new ValidationError('MediationPolicyPreview', [
          {
            field: 'receiptId',
            message: `the schema of tool "${tool.name}" (${tool.schema_hash}) is not in the schema store`,
          },
        ]);
      }
      if (tool.type === 'web_search_options') request.web_search_options = declaration;
      else if (tool.type === 'mcp_server') {
        request.mcp_servers = [...((request.mcp_servers as unknown[]) ?? []), declaration];
      } else if (tool.declared_by === 'wardwright') hostedTools.push(declaration);
      else request.tools.push(declaration);
    }
    return {
      request,
      surface: receipt.surface as Surface,
      hostedTools: hostedTools as never,
      identity: receipt.identity,
    };
  }
}
