import { Inject, Injectable } from '@nestjs/common';
import { type Access, ROUTES, type RouteName } from '@toolgate/contract';
import type { GatewaySpec } from '@toolgate/core';
import type { FastifyRequest } from 'fastify';
import { StatusError } from '../common/api-errors.ts';
import { ResourceRepository } from '../resources/resource.repository.ts';
import { Authenticator, type Principal } from './authenticator.ts';

export type AuthenticatedRequest = FastifyRequest & { principal?: Principal };

/**
 * Enforces each route's access rule from the contract. A route without one is refused (and a
 * test fails). `ownGateway`: an identity whose only matching role is `gateway` may act only on
 * the Gateway whose `spec.identity` it is.
 */
@Injectable()
export class AccessControl {
  constructor(
    @Inject(Authenticator) private readonly authenticator: Authenticator,
    @Inject(ResourceRepository) private readonly resources: ResourceRepository,
  ) {}

  /** Admits `request` to route `name` or throws the Status that says why not. */
  async admit(name: RouteName | undefined, request: AuthenticatedRequest): Promise<void> {
    const access: Access | undefined = name ? ROUTES[name].access : undefined;
    if (!access) throw StatusError.of('Forbidden', 'this route has no access rule');
    if ('anonymous' in access) return;
    const principal = await this.authenticator.authenticate(request.headers.authorization);
    if (!principal) {
      throw StatusError.of('Unauthorized', 'a valid bearer token is required');
    }
    request.principal = principal;
    const granted = principal.roles.filter((role) => access.roles.includes(role));
    if (granted.length === 0) {
      throw StatusError.of(
        'Forbidden',
        `${principal.name} (${principal.roles.join(', ')}) may not call ${name}`,
      );
    }
    if (access.ownGateway && granted.every((role) => role === 'gateway')) {
      await this.requireOwnGateway(principal, request);
    }
  }

  private async requireOwnGateway(principal: Principal, request: AuthenticatedRequest) {
    const gateway = (request.params as { name?: string }).name;
    const record = gateway ? await this.resources.find('Gateway', gateway) : undefined;
    if ((record?.object.spec as GatewaySpec | undefined)?.identity !== principal.name) {
      throw StatusError.of('Forbidden', `${principal.name} may only act on its own gateway`);
    }
  }
}
