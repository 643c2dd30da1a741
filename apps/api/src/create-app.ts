import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule, type AppConfig } from './app.module.ts';
import { SchemaValidationPipe } from './common/schema-validation.pipe.ts';
import { StatusFilter } from './common/status.filter.ts';

const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'content-security-policy': "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
};

/** The API application, initialised but not listening (tests listen on a random port). */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: config.env.BODY_LIMIT,
    loggerInstance: config.log,
    requestTimeout: 120_000,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(config), adapter, {
    logger: ['error', 'warn'],
    abortOnError: false,
  });
  app.useGlobalPipes(new SchemaValidationPipe());
  app.useGlobalFilters(new StatusFilter(config.log));
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onSend', async (_request, reply, payload) => {
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
      return payload;
    });
  app.enableShutdownHooks();
  await app.init();
  return app;
}
