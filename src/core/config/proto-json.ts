/**
 * The typed message in protobuf's JSON mapping as Python's
 * `MessageToDict(msg, preserving_proto_field_name=True)` writes it (the corpus conventions):
 * fields in field-number order, scalars at their default left out (except oneof members, which
 * have presence), empty repeated fields and maps left out, 64-bit integers as decimal strings,
 * floats rounded the way a 32-bit float prints, NaN and infinities as strings.
 */
import type { MapEntry, ProtoMessage, ProtoValue } from './interpret.js';
import { isDefaultScalar } from './scalars.js';
import type { FieldInfo } from './schema.js';
import { is64Bit } from './schema.js';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Python's ToShortestFloat: the shortest decimal (from 6 digits up) that reads back as the same float32. */
function shortestFloat32(value: number): number {
  for (let precision = 6; precision < 17; precision++) {
    const rounded = Number(value.toPrecision(precision));
    if (Math.fround(rounded) === value) return rounded;
  }
  return value;
}

function scalarJson(field: FieldInfo, value: ProtoValue): JsonValue {
  if (typeof value === 'object') return messageJson(value);
  if (typeof value === 'bigint') return is64Bit(field.scalar) ? value.toString() : Number(value);
  if (typeof value === 'number') {
    if (is64Bit(field.scalar)) return String(value);
    if (Number.isNaN(value)) return 'NaN';
    if (value === Infinity) return 'Infinity';
    if (value === -Infinity) return '-Infinity';
    if (field.scalar === 'float') return shortestFloat32(value);
    return value;
  }
  return value;
}

export function messageJson(message: ProtoMessage): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  for (const field of message.type.fields) {
    if (!message.values.has(field.name)) continue;
    const value = message.values.get(field.name)!;
    if (value instanceof Map) {
      if (value.size === 0) continue;
      const valueField = field.messageType!.fields[1]!;
      const obj: { [key: string]: JsonValue } = {};
      for (const [key, entry] of value as Map<string, MapEntry>) obj[key] = scalarJson(valueField, entry.value);
      out[field.name] = obj;
    } else if (Array.isArray(value)) {
      if (value.length === 0) continue;
      out[field.name] = value.map((v) => scalarJson(field, v));
    } else if (field.kind === 'message') {
      out[field.name] = scalarJson(field, value);
    } else {
      if (!field.oneof && isDefaultScalar(field, value)) continue;
      out[field.name] = scalarJson(field, value);
    }
  }
  return out;
}
