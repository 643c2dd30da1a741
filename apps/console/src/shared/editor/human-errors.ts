/**
 * Validation causes as the API sends them (`spec.rules[1].match`, zod's wording) turned into
 * sentences an operator reads: "rule 2: `match` is required". The one place this mapping lives:
 * the error list, the inline messages in the YAML editor and the form's fields all use it.
 */
export interface FieldCause {
  field: string;
  message: string;
}

const ARTICLE: Record<string, string> = {
  object: 'an object',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  integer: 'a whole number',
};
const noun = (type: string) => ARTICLE[type] ?? type;

/** Where a cause is, in words: "rule 2: `match`", "`spec.priority`", "rule 2". */
export function humanField(field: string): string {
  const rule = /^spec\.rules\[(\d+)\](?:\.(.+))?$/.exec(field);
  if (rule) {
    const where = `rule ${Number(rule[1]) + 1}`;
    return rule[2] ? `${where}: \`${rule[2]}\`` : where;
  }
  if (field === '') return 'the policy';
  return `\`${field}\``;
}

/** zod's wording of what is wrong, as a predicate ("is required"); other messages as they are. */
export function humanMessage(message: string): string {
  let m = /^Invalid input: expected (\w+), received undefined$/.exec(message);
  if (m) return 'is required';
  m = /^Invalid input: expected (\w+), received (\w+)$/.exec(message);
  if (m) return `must be ${noun(m[1] as string)}, not ${noun(m[2] as string)}`;
  m = /^Invalid option: expected one of (.+)$/.exec(message);
  if (m) return `must be one of ${(m[1] as string).replaceAll('"', '').split('|').join(', ')}`;
  m = /^Invalid discriminator value\. Expected (.+)$/.exec(message);
  if (m) return `must be one of ${(m[1] as string).replaceAll("'", '').split(' | ').join(', ')}`;
  m = /^Unrecognized keys?: (.+)$/.exec(message);
  if (m) {
    const keys = (m[1] as string).split(', ').map((k) => `\`${k.replaceAll('"', '')}\``);
    return `has ${keys.length === 1 ? 'a field' : 'fields'} it does not know: ${keys.join(', ')}`;
  }
  m = /^Too small: expected (\w+) to have >=?(\d+) (?:characters|items)$/.exec(message);
  if (m) {
    if (m[2] === '1') return 'must not be empty';
    return `must have at least ${m[2]} ${m[1] === 'array' ? 'items' : 'characters'}`;
  }
  m = /^Too big: expected (\w+) to have <=?(\d+) (characters|items)$/.exec(message);
  if (m) return `must have at most ${m[2]} ${m[3]}`;
  m = /^Too small: expected number to be >=?(-?[\d.]+)$/.exec(message);
  if (m) return `must be at least ${m[1]}`;
  m = /^Too big: expected number to be <=?(-?[\d.]+)$/.exec(message);
  if (m) return `must be at most ${m[1]}`;
  m = /^Invalid string: must match pattern/.exec(message);
  if (m) return 'is not in the expected format';
  if (message === 'Invalid input') return 'is not valid';
  return message;
}

/** The whole sentence: "rule 2: `match` is required". */
export function humanCause(cause: FieldCause): string {
  return `${humanField(cause.field)} ${humanMessage(cause.message)}`;
}
