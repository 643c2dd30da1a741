import { Body, Controller, Inject, Param, Req, UseGuards } from '@nestjs/common';
import { NameParams, ROUTES } from '@toolgate/contract';
import type { z } from 'zod';
import type { AuthenticatedRequest } from '../auth/access-control.ts';
import { CurrentActor } from '../auth/current-actor.decorator.ts';
import { TokenRateLimitGuard } from '../auth/token-rate-limit.guard.ts';
import { Route } from '../common/route.decorator.ts';
import type { Actor } from '../resources/kind-hooks.ts';
import { TokensService } from './tokens.service.ts';

type RevokeParams = z.infer<NonNullable<(typeof ROUTES)['tokens.revokeToken']['params']>>;

/** Token issue/list/revoke and whoami (CRUD of identities comes from the resource factory). */
@Controller()
export class IdentitiesController {
  constructor(@Inject(TokensService) private readonly tokens: TokensService) {}

  @Route('tokens.issueToken')
  @UseGuards(TokenRateLimitGuard)
  issue(
    @Param({ schema: NameParams }) params: z.infer<typeof NameParams>,
    @Body({ schema: ROUTES['tokens.issueToken'].body })
    body: { description?: string; ttlSeconds?: number },
    @CurrentActor() actor: Actor,
  ) {
    return this.tokens.issue(params.name, body, actor);
  }

  @Route('tokens.listTokens')
  async list(@Param({ schema: NameParams }) params: z.infer<typeof NameParams>) {
    return { items: await this.tokens.list(params.name) };
  }

  @Route('tokens.revokeToken')
  revoke(
    @Param({ schema: ROUTES['tokens.revokeToken'].params }) params: RevokeParams,
    @CurrentActor() actor: Actor,
  ) {
    return this.tokens.revoke(params.name, params.tokenId, actor);
  }

  @Route('tokens.whoami')
  whoami(@Req() request: AuthenticatedRequest) {
    const principal = request.principal;
    return { identity: principal?.name, type: principal?.type, roles: principal?.roles };
  }
}
