import { Global, Module } from '@nestjs/common';
import { AccessControl } from './access-control.ts';
import { Authenticator } from './authenticator.ts';
import { TokenRepository } from './token.repository.ts';

/**
 * Bearer-token authentication and the route access rules, for every route: `AccessControl`
 * runs in a Fastify hook (`admitBeforeBody`, installed by `createApp`), before body parsing.
 */
@Global()
@Module({
  providers: [TokenRepository, Authenticator, AccessControl],
  exports: [TokenRepository, Authenticator, AccessControl],
})
export class AuthModule {}
