import { type GetDMMFError, getDMMF } from '@prisma/get-dmmf';
import pg from 'pg';

/**
 * Drift check without Prisma's native schema engine: parse schema.prisma with Prisma's own
 * parser (WebAssembly), introspect the database from pg_catalog, bring both to one shape
 * (`DatabaseShape`) and list every difference in words. Test support only: `@prisma/get-dmmf`
 * is a dev dependency.
 *
 * Whatever the schema uses that this file cannot compare (relations, enums, operator classes…)
 * is reported as a difference too, so a new feature fails loudly instead of going unchecked.
 */

/** Tables by name, as both sides describe them. */
export type DatabaseShape = Map<string, TableShape>;

export interface TableShape {
  /** Where the expectation comes from (`Receipt`), for messages; absent for the database. */
  model?: string;
  /** Columns by name. */
  columns: Map<string, ColumnShape>;
  /** Indexes by name, the primary key's included. */
  indexes: Map<string, IndexShape>;
  foreignKeys: string[];
  /**
   * How the table is partitioned, as `pg_get_partkeydef` spells it (`RANGE (received_at)`).
   * Prisma cannot declare it: schema.prisma says so in the model's documentation, on a line
   * `@partitioned RANGE (received_at)`. The partitions themselves are not compared.
   */
  partitioning?: string;
  /** Things the comparison does not understand; each is a difference. */
  unsupported: string[];
}

export interface ColumnShape {
  field?: string;
  /** As `format_type` spells it: `text`, `timestamp(3) with time zone`, `text[]`. */
  type: string;
  notNull: boolean;
  /** The default expression (`pg_get_expr`), or null. A RegExp where only the form is known. */
  default: string | RegExp | null;
}

export interface IndexShape {
  kind: 'primary' | 'unique' | 'index';
  /** `btree`, `gin`, … */
  method: string;
  /** Key columns in order, `DESC` appended for descending ones: `received_at DESC`. */
  columns: string[];
}

type Dmmf = Exclude<ReturnType<typeof getDMMF>, GetDMMFError>;
type Model = Dmmf['datamodel']['models'][number];
type Field = Model['fields'][number];

/** PostgreSQL's identifier limit; Prisma shortens default constraint names to fit it. */
const MAX_IDENTIFIER = 63;

/** What `prisma migrate` would create for this schema (PostgreSQL connector). */
export function schemaFromPrisma(schemaText: string): DatabaseShape {
  const dmmf = getDMMF({ datamodel: schemaText });
  if ('error' in dmmf) throw new Error(`schema.prisma does not parse: ${dmmf.reason}`);
  const shape: DatabaseShape = new Map();
  for (const model of dmmf.datamodel.models) {
    const table = model.dbName ?? model.name;
    const columnOf = (fieldName: string) => {
      const field = model.fields.find((candidate) => candidate.name === fieldName);
      return field?.dbName ?? fieldName;
    };
    const shapeOfTable: TableShape = {
      model: model.name,
      columns: new Map(),
      indexes: new Map(),
      foreignKeys: [],
      unsupported: [],
    };
    const partitioning = /^@partitioned (.+)$/m.exec(model.documentation ?? '')?.[1]?.trim();
    if (partitioning) shapeOfTable.partitioning = partitioning;
    for (const field of model.fields) {
      if (field.kind !== 'scalar') {
        shapeOfTable.unsupported.push(
          `${model.name}.${field.name} is a ${field.kind} field, which schema-drift.ts cannot compare yet`,
        );
        continue;
      }
      shapeOfTable.columns.set(
        field.dbName ?? field.name,
        expectedColumn(model, field, shapeOfTable),
      );
    }
    for (const index of dmmf.datamodel.indexes.filter(
      (candidate) => candidate.model === model.name,
    )) {
      const columns = index.fields.map((field) => columnOf(field.name));
      if (index.fields.some((field) => field.length !== undefined || field.operatorClass)) {
        shapeOfTable.unsupported.push(
          `${model.name}: index on (${columns.join(', ')}) has a length or operator class, which schema-drift.ts cannot compare yet`,
        );
      }
      const kind = ({ id: 'primary', unique: 'unique', normal: 'index' } as const)[
        index.type as 'id' | 'unique' | 'normal'
      ];
      if (kind === undefined) {
        shapeOfTable.unsupported.push(`${model.name}: ${index.type} indexes are not supported`);
        continue;
      }
      const suffix = { primary: 'pkey', unique: 'key', index: 'idx' }[kind];
      const name =
        index.dbName ??
        (kind === 'primary' ? `${table}_pkey` : defaultIndexName(table, columns, suffix));
      shapeOfTable.indexes.set(name, {
        kind,
        method: (index.algorithm ?? 'BTree').toLowerCase(),
        columns: index.fields.map(
          (field) => `${columnOf(field.name)}${field.sortOrder === 'desc' ? ' DESC' : ''}`,
        ),
      });
    }
    shape.set(table, shapeOfTable);
  }
  const [enumeration] = dmmf.datamodel.enums;
  if (enumeration) {
    throw new Error(`enum ${enumeration.name}: schema-drift.ts cannot compare enums yet`);
  }
  return shape;
}

/**
 * The tables of the connection's current schema, except Prisma's `_prisma_migrations` and the
 * partitions of partitioned tables (a partitioned table is compared as one table).
 */
export async function schemaFromDatabase(databaseUrl: string): Promise<DatabaseShape> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ table: string; partitioning: string | null }>(
      `SELECT c.relname AS table,
              CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END AS partitioning
         FROM pg_class c
        WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
          AND NOT c.relispartition AND c.relname <> '_prisma_migrations'`,
    );
    const columns = await client.query<{
      table: string;
      column: string;
      type: string;
      not_null: boolean;
      default: string | null;
      identity: string;
      generated: string;
    }>(
      `SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
              a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS default,
              a.attidentity::text AS identity, a.attgenerated::text AS generated
         FROM pg_attribute a
         JOIN pg_class c ON c.oid = a.attrelid
         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
          AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY c.relname, a.attnum`,
    );
    const indexes = await client.query<{
      table: string;
      name: string;
      primary: boolean;
      unique: boolean;
      method: string;
      columns: string[];
      options: number[];
      key_count: number;
      column_count: number;
      expressions: boolean;
      partial: boolean;
    }>(
      `SELECT t.relname AS table, i.relname AS name, x.indisprimary AS primary,
              x.indisunique AS unique, am.amname AS method,
              ARRAY(SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(num, ord)
                      JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.num
                     ORDER BY k.ord) AS columns,
              x.indoption::int2[] AS options, x.indnkeyatts AS key_count,
              x.indnatts AS column_count, x.indexprs IS NOT NULL AS expressions,
              x.indpred IS NOT NULL AS partial
         FROM pg_index x
         JOIN pg_class i ON i.oid = x.indexrelid
         JOIN pg_class t ON t.oid = x.indrelid
         JOIN pg_am am ON am.oid = i.relam
        WHERE t.relnamespace = current_schema()::regnamespace AND t.relname <> '_prisma_migrations'`,
    );
    const foreignKeys = await client.query<{ table: string; name: string; definition: string }>(
      `SELECT t.relname AS table, c.conname AS name, pg_get_constraintdef(c.oid) AS definition
         FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
        WHERE t.relnamespace = current_schema()::regnamespace AND c.contype = 'f'`,
    );

    const shape: DatabaseShape = new Map();
    for (const { table, partitioning } of tables.rows) {
      shape.set(table, {
        columns: new Map(),
        indexes: new Map(),
        foreignKeys: [],
        unsupported: [],
        ...(partitioning ? { partitioning } : {}),
      });
    }
    for (const row of columns.rows) {
      const table = shape.get(row.table);
      if (!table) continue;
      table.columns.set(row.column, {
        type: row.type,
        notNull: row.not_null,
        default: row.default,
      });
      if (row.identity || row.generated) {
        table.unsupported.push(
          `column ${row.column} is ${row.identity ? 'an identity' : 'a generated'} column, which Prisma does not create`,
        );
      }
    }
    for (const row of indexes.rows) {
      const table = shape.get(row.table);
      if (!table) continue;
      if (row.expressions || row.partial || row.key_count !== row.column_count) {
        table.unsupported.push(
          `index ${row.name} has expressions, a WHERE clause or INCLUDE columns, which Prisma does not create`,
        );
      }
      table.indexes.set(row.name, {
        kind: row.primary ? 'primary' : row.unique ? 'unique' : 'index',
        method: row.method,
        // indoption bit 0 is DESC.
        columns: row.columns.map((column, i) =>
          (row.options[i] ?? 0) & 1 ? `${column} DESC` : column,
        ),
      });
    }
    for (const row of foreignKeys.rows) {
      shape.get(row.table)?.foreignKeys.push(`${row.name} ${row.definition}`);
    }
    return shape;
  } finally {
    await client.end();
  }
}

/**
 * Every way `actual` (the database) differs from `expected` (schema.prisma), in words.
 * `ignorePartitioning` for two databases of which one comes from Prisma's engine, which never
 * partitions.
 */
export function diffSchemas(
  expected: DatabaseShape,
  actual: DatabaseShape,
  options: { ignorePartitioning?: boolean } = {},
): string[] {
  const differences: string[] = [];
  for (const [tableName, wanted] of expected) {
    const label = `table ${tableName}${wanted.model ? ` (model ${wanted.model})` : ''}`;
    for (const problem of wanted.unsupported) differences.push(`${label}: ${problem}`);
    const found = actual.get(tableName);
    if (!found) {
      differences.push(`${label}: missing from the database`);
      continue;
    }
    for (const problem of found.unsupported) differences.push(`${label}: ${problem}`);
    if (!options.ignorePartitioning && found.partitioning !== wanted.partitioning) {
      differences.push(
        `${label}: ${found.partitioning ? `partitioned by ${found.partitioning}` : 'not partitioned'}, schema.prisma wants ${wanted.partitioning ? `partitioned by ${wanted.partitioning}` : 'no partitioning'}`,
      );
    }
    for (const [columnName, column] of wanted.columns) {
      const where = `${label}, column ${columnName}${column.field ? ` (field ${column.field})` : ''}`;
      const present = found.columns.get(columnName);
      if (!present) {
        differences.push(`${where}: missing from the database`);
        continue;
      }
      if (present.type !== column.type) {
        differences.push(`${where}: type is ${present.type}, schema.prisma wants ${column.type}`);
      }
      if (present.notNull !== column.notNull) {
        differences.push(
          `${where}: is ${present.notNull ? 'NOT NULL' : 'nullable'}, schema.prisma wants ${column.notNull ? 'NOT NULL' : 'nullable'}`,
        );
      }
      if (!defaultMatches(column.default, present.default)) {
        differences.push(
          `${where}: default is ${present.default ?? 'none'}, schema.prisma wants ${column.default ?? 'none'}`,
        );
      }
    }
    for (const [columnName, column] of found.columns) {
      if (!wanted.columns.has(columnName)) {
        differences.push(
          `${label}: unexpected column ${columnName} ${column.type}${column.notNull ? ' NOT NULL' : ''}`,
        );
      }
    }
    for (const [indexName, index] of wanted.indexes) {
      const present = found.indexes.get(indexName);
      if (!present) {
        differences.push(`${label}: missing ${describeIndex(indexName, index)}`);
      } else if (describeIndex(indexName, present) !== describeIndex(indexName, index)) {
        differences.push(
          `${label}: ${describeIndex(indexName, present)}, schema.prisma wants ${describeIndex(indexName, index)}`,
        );
      }
    }
    for (const [indexName, index] of found.indexes) {
      if (!wanted.indexes.has(indexName)) {
        differences.push(`${label}: unexpected ${describeIndex(indexName, index)}`);
      }
    }
    for (const foreignKey of found.foreignKeys) {
      differences.push(`${label}: unexpected foreign key ${foreignKey}`);
    }
  }
  for (const tableName of actual.keys()) {
    if (!expected.has(tableName)) {
      differences.push(`table ${tableName}: in the database but not in schema.prisma`);
    }
  }
  return differences;
}

function describeIndex(name: string, index: IndexShape): string {
  const kind = { primary: 'primary key', unique: 'unique index', index: 'index' }[index.kind];
  return `${kind} ${name} USING ${index.method} (${index.columns.join(', ')})`;
}

function defaultMatches(wanted: ColumnShape['default'], present: ColumnShape['default']): boolean {
  if (wanted instanceof RegExp) return typeof present === 'string' && wanted.test(present);
  return wanted === present;
}

/**
 * How Prisma's PostgreSQL connector lays out a scalar field: scalar lists are arrays and never
 * NOT NULL; DateTime without a native type is timestamp(3); Json is jsonb.
 */
function expectedColumn(model: Model, field: Field, table: TableShape): ColumnShape {
  const where = `${model.name}.${field.name}`;
  const type = columnType(field) ?? '?';
  if (type === '?') {
    table.unsupported.push(
      `${where}: cannot tell the column type of ${field.type} ${field.nativeType}`,
    );
  }
  const wantedDefault = expectedDefault(field, type);
  if (wantedDefault === undefined) {
    table.unsupported.push(`${where}: cannot compare default ${JSON.stringify(field.default)}`);
  }
  return {
    field: field.name,
    type: field.isList ? `${type}[]` : type,
    notNull: field.isRequired && !field.isList,
    default: wantedDefault ?? null,
  };
}

function columnType(field: Field): string | undefined {
  const [nativeName, args = []] = field.nativeType ?? [];
  const precision = args.length > 0 ? `(${args.join(',')})` : '';
  switch (nativeName) {
    case undefined:
      return {
        String: 'text',
        Int: 'integer',
        BigInt: 'bigint',
        Boolean: 'boolean',
        DateTime: 'timestamp(3) without time zone',
        Json: 'jsonb',
        Float: 'double precision',
        Decimal: 'numeric(65,30)',
        Bytes: 'bytea',
      }[field.type];
    case 'Timestamptz':
      return `timestamp${precision} with time zone`;
    case 'Timestamp':
      return `timestamp${precision} without time zone`;
    case 'VarChar':
      return `character varying${precision}`;
    case 'Char':
      return `character${precision}`;
    case 'Decimal':
      return `numeric${precision}`;
    default:
      return {
        Text: 'text',
        Uuid: 'uuid',
        Date: 'date',
        SmallInt: 'smallint',
        Integer: 'integer',
        BigInt: 'bigint',
        Json: 'json',
        JsonB: 'jsonb',
        Boolean: 'boolean',
        DoublePrecision: 'double precision',
        Real: 'real',
        ByteA: 'bytea',
      }[nativeName];
  }
}

/**
 * The default expression PostgreSQL reports for a Prisma default; null for none (and for
 * defaults Prisma fills in itself, like uuid()); undefined when this file cannot tell.
 */
function expectedDefault(field: Field, type: string): string | RegExp | null | undefined {
  const value = field.default;
  if (value === undefined) return null;
  if (typeof value === 'object' && !Array.isArray(value) && 'name' in value) {
    switch (value.name) {
      case 'autoincrement':
        return /^nextval\('[^']+'::regclass\)$/;
      case 'now':
        return 'CURRENT_TIMESTAMP';
      case 'dbgenerated':
        return value.args[0] === undefined ? undefined : String(value.args[0]);
      case 'uuid':
      case 'cuid':
      case 'nanoid':
      case 'ulid':
        return null;
      default:
        return undefined;
    }
  }
  if (Array.isArray(value) || field.isList) return undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string' && (type === 'text' || type === 'jsonb' || type === 'json')) {
    return `'${value.replaceAll("'", "''")}'::${type}`;
  }
  return undefined;
}

/** Prisma's default name for a unique (`key`) or plain (`idx`) index. */
function defaultIndexName(table: string, columns: string[], suffix: string): string {
  const name = [table, ...columns].join('_');
  return `${name.slice(0, MAX_IDENTIFIER - suffix.length - 1)}_${suffix}`;
}
