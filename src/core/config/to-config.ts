/**
 * The typed message as the plain ModelConfig object the rest of gebe reads: proto field names,
 * every field that was written (even at its default), 64-bit integers as JS numbers, enums as
 * names, maps as objects keyed by the key's string form.
 */
import type { MapEntry, ProtoMessage, ProtoValue } from './interpret.js';
import type { ModelConfig } from './model-config.js';

function plainValue(value: ProtoValue): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'object') return plainMessage(value);
  return value;
}

export function plainMessage(message: ProtoMessage): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of message.type.fields) {
    if (!message.values.has(field.name)) continue;
    const value = message.values.get(field.name)!;
    if (value instanceof Map) {
      const obj: Record<string, unknown> = {};
      for (const [key, entry] of value as Map<string, MapEntry>) obj[key] = plainValue(entry.value);
      out[field.name] = obj;
    } else if (Array.isArray(value)) {
      out[field.name] = value.map(plainValue);
    } else {
      out[field.name] = plainValue(value);
    }
  }
  return out;
}

export function toModelConfig(message: ProtoMessage): ModelConfig {
  return plainMessage(message) as ModelConfig;
}
