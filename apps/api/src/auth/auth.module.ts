import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthGuard } from './auth.guard.ts';
import { Authenticator } from './authenticator.ts';
import { TokenRepository } from './token.repository.ts';

/** Bearer-token authentication and the route access rules, for every route. */
@Global()
@Module({
  providers: [TokenRepository, Authenticator, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [TokenRepository, Authenticator],
})
export class AuthModule {}
