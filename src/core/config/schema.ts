/**
 * The ModelConfig schema as the parser needs it: message and enum descriptions loaded from
 * model_config.proto with protobufjs and flattened into plain lookups. Map fields are described
 * the way the text format writes them: a repeated message with `key` (1) and `value` (2) fields.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

export type ScalarType =
  | 'double' | 'float' | 'int32' | 'uint32' | 'int64' | 'uint64' | 'sint32' | 'sint64'
  | 'fixed32' | 'fixed64' | 'sfixed32' | 'sfixed64' | 'bool' | 'string' | 'bytes';

export interface EnumInfo {
  fullName: string;
  byName: Map<string, number>;
  byNumber: Map<number, string>;
}

export interface FieldInfo {
  name: string;
  number: number;
  repeated: boolean;
  /** True for map fields: each entry is a message of `messageType` with `key` and `value`. */
  map: boolean;
  kind: 'scalar' | 'enum' | 'message';
  scalar?: ScalarType;
  enumType?: EnumInfo;
  messageType?: MessageInfo;
  /** The oneof this field belongs to; oneof members track presence even at their default. */
  oneof?: string;
}

export interface MessageInfo {
  fullName: string;
  /** Fields in field-number order (the order proto JSON lists them). */
  fields: FieldInfo[];
  byName: Map<string, FieldInfo>;
  /** Fields in the order model_config.proto declares them (the readable order for printing). */
  declared: FieldInfo[];
  isMapEntry: boolean;
}

const SCALARS = new Set<string>([
  'double', 'float', 'int32', 'uint32', 'int64', 'uint64', 'sint32', 'sint64',
  'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'bool', 'string', 'bytes',
]);

/**
 * The .proto file sits next to this module in src/; a build to dist/ compiles only TypeScript, so
 * fall back to the source tree's copy.
 */
function protoPath(): string {
  const candidates = [
    new URL('./model_config.proto', import.meta.url),
    new URL('../../../src/core/config/model_config.proto', import.meta.url),
  ];
  for (const candidate of candidates) {
    const file = fileURLToPath(candidate);
    if (existsSync(file)) return file;
  }
  return fileURLToPath(candidates[0]!);
}

class SchemaBuilder {
  private readonly messages = new Map<string, MessageInfo>();
  private readonly enums = new Map<string, EnumInfo>();

  enumInfo(e: protobuf.Enum): EnumInfo {
    let info = this.enums.get(e.fullName);
    if (!info) {
      const byName = new Map<string, number>(Object.entries(e.values));
      const byNumber = new Map<number, string>();
      for (const [name, number] of byName) if (!byNumber.has(number)) byNumber.set(number, name);
      info = { fullName: e.fullName.replace(/^\./, ''), byName, byNumber };
      this.enums.set(e.fullName, info);
    }
    return info;
  }

  messageInfo(t: protobuf.Type): MessageInfo {
    const existing = this.messages.get(t.fullName);
    if (existing) return existing;
    const info: MessageInfo = { fullName: t.fullName.replace(/^\./, ''), fields: [], byName: new Map(), declared: [], isMapEntry: false };
    // Registered before the fields are built so that recursive message types terminate.
    this.messages.set(t.fullName, info);
    for (const f of t.fieldsArray) {
      const field = f instanceof protobuf.MapField ? this.mapField(f, info) : this.plainField(f);
      info.declared.push(field);
      info.byName.set(field.name, field);
    }
    info.fields.push(...[...info.declared].sort((a, b) => a.number - b.number));
    return info;
  }

  private typed(name: string, number: number, type: string, resolved: protobuf.ReflectionObject | null): FieldInfo {
    const field: FieldInfo = { name, number, repeated: false, map: false, kind: 'scalar' };
    if (SCALARS.has(type)) {
      field.scalar = type as ScalarType;
    } else if (resolved instanceof protobuf.Enum) {
      field.kind = 'enum';
      field.enumType = this.enumInfo(resolved);
    } else if (resolved instanceof protobuf.Type) {
      field.kind = 'message';
      field.messageType = this.messageInfo(resolved);
    } else {
      throw new Error(`model_config.proto: cannot resolve type "${type}" of field "${name}"`);
    }
    return field;
  }

  private plainField(f: protobuf.Field): FieldInfo {
    const field = this.typed(f.name, f.id, f.type, f.resolvedType);
    field.repeated = f.repeated;
    if (f.partOf) field.oneof = f.partOf.name;
    return field;
  }

  private mapField(f: protobuf.MapField, owner: MessageInfo): FieldInfo {
    const key = this.typed('key', 1, f.keyType, null);
    const value = this.typed('value', 2, f.type, f.resolvedType);
    const entry: MessageInfo = {
      fullName: `${owner.fullName}.${f.name}Entry`,
      fields: [key, value],
      byName: new Map([['key', key], ['value', value]]),
      declared: [key, value],
      isMapEntry: true,
    };
    return { name: f.name, number: f.id, repeated: true, map: true, kind: 'message', messageType: entry };
  }
}

let cached: MessageInfo | undefined;

/** The description of `inference.ModelConfig`, loaded once. */
export function modelConfigSchema(): MessageInfo {
  if (!cached) {
    const text = readFileSync(protoPath(), 'utf8');
    const root = protobuf.parse(text, { keepCase: true }).root;
    root.resolveAll();
    cached = new SchemaBuilder().messageInfo(root.lookupType('inference.ModelConfig'));
  }
  return cached;
}

export function is64Bit(type: ScalarType | undefined): boolean {
  return type === 'int64' || type === 'uint64' || type === 'sint64' || type === 'fixed64' || type === 'sfixed64';
}
