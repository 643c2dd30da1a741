import { Inject, Injectable } from '@nestjs/common';
import type { ReceiptToolLink } from '@toolgate/contract';
import { NotFoundError } from '@toolgate/core';
import { ReceiptToolLinksRepository } from './receipt-tool-links.repository.ts';

/** A receipt's tool calls linked to the receipts holding their results, and back. */
@Injectable()
export class ReceiptToolLinksService {
  constructor(
    @Inject(ReceiptToolLinksRepository) private readonly links: ReceiptToolLinksRepository,
  ) {}

  async linksOf(id: string): Promise<{ items: ReceiptToolLink[] }> {
    const items = await this.links.linksOf(id);
    if (items === undefined) throw new NotFoundError('Receipt', id);
    return { items };
  }
}
