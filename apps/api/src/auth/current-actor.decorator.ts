import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Actor } from '../resources/kind-hooks.ts';
import type { AuthenticatedRequest } from './auth.guard.ts';

/** The authenticated caller (set by the AuthGuard). */
export const CurrentActor = createParamDecorator((_: unknown, context: ExecutionContext): Actor => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  return principal
    ? { name: principal.name, roles: principal.roles }
    : { name: 'anonymous', roles: [] };
});
