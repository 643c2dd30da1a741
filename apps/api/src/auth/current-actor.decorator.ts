import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Actor } from '../resources/kind-hooks.ts';
import type { AuthenticatedRequest } from './access-control.ts';

/** The authenticated caller (set by AccessControl before the body is read). */
export const CurrentActor = createParamDecorator((_: unknown, context: ExecutionContext): Actor => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  return principal
    ? { name: principal.name, roles: principal.roles }
    : { name: 'anonymous', roles: [] };
});
