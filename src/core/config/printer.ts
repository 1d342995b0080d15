/**
 * Writes a ModelConfig (or any message of the schema) as readable protobuf text format, in the
 * order model_config.proto declares its fields and in the layout Triton's own examples use:
 * `dims: [ 1, 28, 28 ]`, `input [ { ... } ]`, one `parameters { key ... value { ... } }` block per
 * map entry. Used by `gebe init` and to write new blocks such as `model_warmup`.
 */
import type { ModelConfig } from './model-config.js';
import type { FieldInfo, MessageInfo } from './schema.js';
import { modelConfigSchema } from './schema.js';
import { RANGES } from './scalars.js';
import { quoteString } from './strings.js';

const INDENT = '  ';

function fail(path: string, message: string): never {
  throw new Error(`Cannot print config field ${path}: ${message}`);
}

/** The text-format spelling of one scalar value of `field`. */
export function formatScalar(field: FieldInfo, value: unknown, path = field.name): string {
  if (field.kind === 'enum') {
    if (typeof value === 'string' && field.enumType!.byName.has(value)) return value;
    if (typeof value === 'number' && Number.isInteger(value)) return field.enumType!.byNumber.get(value) ?? String(value);
    return fail(path, `expected a name of ${field.enumType!.fullName}, got ${JSON.stringify(value)}`);
  }
  switch (field.scalar) {
    case 'string':
    case 'bytes':
      if (typeof value !== 'string') return fail(path, `expected a string, got ${typeof value}`);
      return quoteString(value);
    case 'bool':
      if (typeof value !== 'boolean') return fail(path, `expected a boolean, got ${typeof value}`);
      return value ? 'true' : 'false';
    case 'float':
    case 'double':
      if (typeof value !== 'number') return fail(path, `expected a number, got ${typeof value}`);
      if (Number.isNaN(value)) return 'nan';
      if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
      return String(value);
    default: {
      const ok = (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint' ||
        (typeof value === 'string' && /^-?[0-9]+$/.test(value));
      if (!ok) return fail(path, `expected an integer, got ${JSON.stringify(value)}`);
      if (typeof value !== 'number' || Number.isSafeInteger(value)) return String(value);
      // Beyond 2^53 a JS number is approximate (the plain config stores 64-bit values as numbers):
      // print the exact integer it holds, kept inside the field's range.
      const [min, max] = RANGES[field.scalar!] ?? [BigInt(value), BigInt(value)];
      const exact = BigInt(value);
      return String(exact < min ? min : exact > max ? max : exact);
    }
  }
}

function printMessageBody(type: MessageInfo, value: Record<string, unknown>, depth: number, path: string): string[] {
  const lines: string[] = [];
  for (const key of Object.keys(value)) {
    if (value[key] !== undefined && !type.byName.has(key)) fail(`${path}${key}`, `${type.fullName} has no such field`);
  }
  for (const field of type.declared) {
    const v = value[field.name];
    if (v === undefined) continue;
    lines.push(...printField(field, v, depth, `${path}${field.name}`));
  }
  return lines;
}

function printBlock(type: MessageInfo, value: unknown, depth: number, path: string): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, 'expected an object');
  const body = printMessageBody(type, value as Record<string, unknown>, depth + 1, `${path}.`);
  return body.length === 0 ? ['{ }'] : ['{', ...body, `${INDENT.repeat(depth)}}`];
}

function printField(field: FieldInfo, value: unknown, depth: number, path: string): string[] {
  const pad = INDENT.repeat(depth);
  if (field.map) {
    if (typeof value !== 'object' || value === null) fail(path, 'expected an object for a map');
    const [keyField, valueField] = field.messageType!.fields as [FieldInfo, FieldInfo];
    const lines: string[] = [];
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      const keyValue = keyField.scalar === 'string' ? key : keyField.scalar === 'bool' ? key === 'true' : key;
      lines.push(`${pad}${field.name} {`, `${pad}${INDENT}key: ${formatScalar(keyField, keyValue, `${path}.key`)}`);
      if (valueField.kind === 'message') {
        const block = printBlock(valueField.messageType!, v, depth + 1, `${path}[${key}]`);
        lines.push(`${pad}${INDENT}value ${block[0]}`, ...block.slice(1));
      } else {
        lines.push(`${pad}${INDENT}value: ${formatScalar(valueField, v, `${path}[${key}]`)}`);
      }
      lines.push(`${pad}}`);
    }
    return lines;
  }
  if (field.repeated) {
    if (!Array.isArray(value)) fail(path, 'expected an array');
    if (field.kind !== 'message') {
      const items = value.map((v, i) => formatScalar(field, v, `${path}[${i}]`));
      return [`${pad}${field.name}: [ ${items.join(', ')} ]`];
    }
    if (value.length === 0) return [`${pad}${field.name}: [ ]`];
    const lines = [`${pad}${field.name} [`];
    value.forEach((item, i) => {
      const block = printBlock(field.messageType!, item, depth + 1, `${path}[${i}]`);
      lines.push(`${pad}${INDENT}${block[0]}`, ...block.slice(1));
      if (i < value.length - 1) lines[lines.length - 1] += ',';
    });
    lines.push(`${pad}]`);
    return lines;
  }
  if (field.kind === 'message') {
    const block = printBlock(field.messageType!, value, depth, path);
    return [`${pad}${field.name} ${block[0]}`, ...block.slice(1)];
  }
  return [`${pad}${field.name}: ${formatScalar(field, value, path)}`];
}

/**
 * Text format for the fields of a message of `type` (ModelConfig by default) at the given
 * indentation depth; throws on fields or values the schema does not allow (a programming error).
 */
export function printFields(value: Record<string, unknown>, type: MessageInfo = modelConfigSchema(), depth = 0): string {
  const lines = printMessageBody(type, value, depth, '');
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

export function printModelConfig(config: ModelConfig): string {
  return printFields(config as Record<string, unknown>);
}
