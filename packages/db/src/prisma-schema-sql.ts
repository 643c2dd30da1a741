import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';

/**
 * The SQL Prisma's own schema engine writes for `schemaText` on an empty PostgreSQL database —
 * what `prisma migrate dev` puts in a first migration. The engine is the WebAssembly build
 * (`@prisma/schema-engine-wasm`), so this works where the native binary cannot be downloaded.
 *
 * It needs a reachable database (`databaseUrl`) only because the engine insists on connecting
 * through its driver adapter; nothing is read or written there. Diffing a live database does
 * not work this way: `@prisma/adapter-pg` 7.10 cannot decode the `"char"` columns of
 * pg_catalog that the engine's introspection reads. Test and tooling support (dev dependency).
 */
export async function prismaSchemaSql(schemaText: string, databaseUrl: string): Promise<string> {
  const Engine = await loadSchemaEngine();
  const adapter = bindMigrationAwareSqlAdapterFactory(
    new PrismaPg({ connectionString: databaseUrl }),
  );
  const files = [{ path: 'schema.prisma', content: schemaText }];
  const engine = await Engine.new(
    { datamodels: [['schema.prisma', schemaText]] },
    () => {},
    adapter,
  );
  try {
    const result = await engine.diff({
      from: { tag: 'empty' },
      to: { tag: 'schemaDatamodel', files },
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    return result.stdout ?? '';
  } finally {
    engine.free();
  }
}

/** The slice of the WebAssembly API used here (the repository's TypeScript lib declares none). */
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

let loaded: Promise<typeof SchemaEngine> | undefined;

/**
 * The package's entry point imports the .wasm file as an ES module, which Node does not do
 * without a flag; instantiate it by hand instead, as Prisma's own loader does.
 */
function loadSchemaEngine(): Promise<typeof SchemaEngine> {
  loaded ??= (async () => {
    const bindings = await import('@prisma/schema-engine-wasm/schema_engine_bg');
    const glue = createRequire(import.meta.url).resolve(
      '@prisma/schema-engine-wasm/schema_engine_bg',
    );
    const { Module, Instance } = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
    const module = new Module(await readFile(join(dirname(glue), 'schema_engine_bg.wasm')));
    const instance = new Instance(module, { './schema_engine_bg.js': bindings });
    bindings.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    // A Rust panic reports its message here before it aborts; surface it instead of a TypeError.
    const registry = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown };
    registry.PRISMA_WASM_PANIC_REGISTRY ??= {
      set_message: (message: string) => {
        throw new Error(`Prisma schema engine panicked: ${message}`);
      },
    };
    return bindings.SchemaEngine;
  })();
  return loaded;
}
