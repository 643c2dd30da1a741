import { Inject, Injectable } from '@nestjs/common';
import { hashCanonical, NotFoundError, ValidationError } from '@toolgate/core';
import { SchemasRepository } from './schemas.repository.ts';

/**
 * The content-addressed store of tool declarations (SPEC §3): receipts carry only schema hashes,
 * gateways upload each declaration once, and the console diffs any two by hash. The address
 * must be the content's canonical hash, so nobody can file a declaration under another's hash.
 */
@Injectable()
export class SchemaStoreService {
  constructor(@Inject(SchemasRepository) private readonly schemas: SchemasRepository) {}

  /** Idempotent: storing the same declaration again answers `created: false`. */
  async put(
    hash: string,
    body: Record<string, unknown>,
  ): Promise<{ hash: string; created: boolean }> {
    let actual: string;
    try {
      actual = hashCanonical(body);
    } catch (error) {
      throw new ValidationError('ToolSchema', [
        { field: '(root)', message: `cannot be hashed: ${(error as Error).message}` },
      ]);
    }
    if (actual !== hash) {
      throw new ValidationError('ToolSchema', [
        { field: 'hash', message: `does not match the content, whose canonical hash is ${actual}` },
      ]);
    }
    if (JSON.stringify(body).includes('\\u0000')) {
      throw new ValidationError('ToolSchema', [
        { field: '(root)', message: 'strings must not contain U+0000' },
      ]);
    }
    return { hash, created: await this.schemas.put(hash, body) };
  }

  async get(hash: string): Promise<Record<string, unknown>> {
    const body = await this.schemas.get(hash);
    if (!body) throw new NotFoundError('ToolSchema', hash);
    return body;
  }
}
