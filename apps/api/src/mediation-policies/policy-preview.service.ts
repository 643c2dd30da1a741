import { Inject, Injectable } from '@nestjs/common';
import type { MediationEffect, PreviewInput } from '@toolgate/contract';
import {
  type BundlePolicy,
  geminiToolList,
  isFunctionDeclaration,
  type JsonObject,
  type MediationPolicySpec,
  MediationPolicySpec as MediationPolicySpecSchema,
  matchesLabelSelector,
  NotFoundError,
  type ProviderProfileSpec,
  parseOrThrow,
  type Receipt,
  ruleIdentityOfReceipt,
  type Surface,
  ValidationError,
} from '@toolgate/core';
import { BundleService } from '../gateways/bundle.service.ts';
import { ReceiptsRepository } from '../receipts/receipts.repository.ts';
import { SchemasRepository } from '../receipts/schemas.repository.ts';
import { ResourceStore } from '../resources/resource-store.service.ts';
import { mediationEffect } from './mediation-effect.ts';

/** Runs draft or historical policies against a sample request or a recorded receipt's tools. */
@Injectable()
export class PolicyPreviewService {
  constructor(
    @Inject(ReceiptsRepository) private readonly receipts: ReceiptsRepository,
    @Inject(SchemasRepository) private readonly schemas: SchemasRepository,
    @Inject(BundleService) private readonly bundles: BundleService,
    @Inject(ResourceStore) private readonly store: ResourceStore,
  ) {}

  /**
   * A draft spec (not stored): errors name `spec.…` fields. With `gateway`, the draft runs
   * together with every policy that gateway's bundle holds — the set that really runs there —
   * its own stored version (`policyName`) left out, and only if its selector selects the gateway.
   */
  async preview(
    spec: unknown,
    input: PreviewInput,
    target: { gateway?: string; policyName?: string } = {},
  ): Promise<MediationEffect> {
    const parsed = parseOrThrow(MediationPolicySpecSchema, spec, 'MediationPolicy', ['spec']);
    if (!target.gateway) return this.effectOf(parsed, input);
    const gateway = await this.store.get('Gateway', target.gateway);
    const { bundle } = await this.bundles.current(target.gateway);
    const draftSelected = matchesLabelSelector(parsed.selector ?? {}, gateway.metadata.labels);
    const draftName = target.policyName ?? 'draft';
    const policies: Array<BundlePolicy & { draft: boolean }> = [
      ...bundle.policies
        .filter((p) => p.name !== target.policyName)
        .map((p) => ({ name: p.name, generation: p.generation, spec: p.spec, draft: false })),
      ...(draftSelected ? [{ name: draftName, generation: 0, spec: parsed, draft: true }] : []),
    ];
    // The bundle's merged order: higher priority first, then by name.
    policies.sort(
      (a, b) =>
        (b.spec as MediationPolicySpec).priority - (a.spec as MediationPolicySpec).priority ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
    const effect = await this.run(policies, input, bundle.profiles);
    return {
      ...effect,
      gateway: target.gateway,
      policies: policies.map((p) => ({ name: p.name, generation: p.generation, draft: p.draft })),
      draftSelected,
    };
  }

  effectOf(spec: MediationPolicySpec, input: PreviewInput): Promise<MediationEffect> {
    return this.run([{ name: 'preview', generation: 0, spec }], input);
  }

  private async run(
    policies: ReadonlyArray<BundlePolicy>,
    input: PreviewInput,
    profiles?: ReadonlyArray<ProviderProfileSpec>,
  ): Promise<MediationEffect> {
    const base = { policies, ...(profiles ? { profiles } : {}) };
    if (input.request) {
      return mediationEffect({
        ...base,
        request: input.request,
        ...(input.surface ? { surface: input.surface } : {}),
      });
    }
    const replay = await this.requestFromReceipt(input.receiptId as string);
    // The recorded caller, as proven as it was: identity-scoped rules replay as they would apply.
    // Header claims count only if every policy that runs trusts them (as in a bundle).
    const trusted =
      policies.length > 0 &&
      policies.every((p) => (p.spec as MediationPolicySpec).headerClaims === 'trusted');
    const identity = ruleIdentityOfReceipt(replay.identity, trusted ? 'trusted' : 'untrusted');
    return mediationEffect({ ...base, ...replay, identity });
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
    if (receipt.surface === 'gemini') {
      // Gemini nests function declarations in one `tools[]` entry; built-ins are entries.
      const declarations = request.tools as JsonObject[];
      const functions = declarations.filter(isFunctionDeclaration);
      const builtIns = declarations.filter((d) => !isFunctionDeclaration(d));
      return {
        request: { model: receipt.model, contents: [], tools: geminiToolList(functions, builtIns) },
        surface: receipt.surface as Surface,
        hostedTools: hostedTools as never,
        identity: receipt.identity,
      };
    }
    return {
      request,
      surface: receipt.surface as Surface,
      hostedTools: hostedTools as never,
      identity: receipt.identity,
    };
  }
}
