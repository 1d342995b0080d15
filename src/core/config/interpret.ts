/**
 * The schema layer of the text-format parser: checks the syntax tree against model_config.proto
 * and builds the typed message. It reports unknown fields (with a "did you mean"), values of the
 * wrong type, out-of-range integers, non-repeated fields given twice and oneof conflicts, with
 * the official C++ parser's rules (checked against `protoc --encode`): a message field given twice
 * is an error, a proto3 scalar given twice only when the earlier value was not its default (both
 * official parsers accept `x: 0 x: 5`, so that case is a warning), and a oneof takes one member.
 */
import type { FieldNode, MessageNode, ScalarNode } from './ast.js';
import { decodeScalar, isDefaultScalar, type ScalarValue } from './scalars.js';
import type { FieldInfo, MessageInfo } from './schema.js';
import type { DiagnosticSink } from './source.js';
import { closestName, respelledName } from './suggest.js';

/** A map entry as written; `key` is the canonical string the plain config and JSON use. */
export interface MapEntry {
  key: ScalarValue;
  value: ProtoValue;
  /** Where the entry is written, for duplicate-key messages. */
  line?: number;
}

export type ProtoValue = ScalarValue | ProtoMessage;

export interface ProtoMessage {
  type: MessageInfo;
  /**
   * Field name → value. Repeated fields hold arrays, map fields a Map keyed by the canonical key
   * string (the last entry for a key wins, as in protobuf). A key is present when the field was
   * written, even at its default value.
   */
  values: Map<string, ProtoValue | ProtoValue[] | Map<string, MapEntry>>;
}

function shortName(type: MessageInfo): string {
  return type.fullName.replace(/^inference\./, '');
}

export function defaultScalar(field: FieldInfo): ScalarValue {
  if (field.kind === 'enum') return field.enumType!.byNumber.get(0) ?? 0;
  switch (field.scalar) {
    case 'bool': return false;
    case 'string': case 'bytes': return '';
    case 'int64': case 'uint64': case 'sint64': case 'fixed64': case 'sfixed64': return 0n;
    default: return 0;
  }
}

export function mapKeyString(key: ScalarValue): string {
  return typeof key === 'boolean' ? (key ? 'true' : 'false') : String(key);
}

export class Interpreter {
  constructor(private readonly sink: DiagnosticSink) {}

  /** `enclosing` lists the messages around this one, outermost first (to explain misplaced fields). */
  message(node: MessageNode, type: MessageInfo, enclosing: MessageInfo[] = []): ProtoMessage {
    const result: ProtoMessage = { type, values: new Map() };
    /** Where each non-repeated field was last set and which member set each oneof, for messages. */
    const setAt = new Map<string, FieldNode>();
    const oneofSetBy = new Map<string, FieldNode>();
    for (const fieldNode of node.fields) {
      const field = type.byName.get(fieldNode.name);
      if (!field) {
        this.reportUnknownField(fieldNode, type, enclosing, node);
        continue;
      }
      if (field.oneof) {
        const other = oneofSetBy.get(field.oneof);
        if (other && other.name !== field.name) {
          this.sink.report('SYNTAX_ONEOF_CONFLICT', fieldNode.nameSpan.start.offset, fieldNode.nameSpan.end.offset,
            `Field "${field.name}" cannot be set together with "${other.name}" (line ${other.nameSpan.start.line}): both belong to oneof "${field.oneof}" of ${shortName(type)}. Keep only one of them.`);
          continue;
        }
        oneofSetBy.set(field.oneof, fieldNode);
      }
      this.field(fieldNode, field, result, setAt, [...enclosing, type]);
    }
    return result;
  }

  /**
   * A scalar where a message belongs. When the message has a single string field (ModelParameter's
   * string_value), the intent is clear and the fix wraps the value: value: { string_value: "1" }.
   */
  private reportScalarForMessage(field: FieldInfo, item: ScalarNode): ProtoMessage | undefined {
    const type = field.messageType!;
    const only = type.fields.length === 1 ? type.fields[0]! : undefined;
    const { start, end } = item.span;
    if (only && !type.isMapEntry && only.kind === 'scalar' && only.scalar === 'string' && item.token === 'string') {
      const wrapped = `{ ${only.name}: ${item.text} }`;
      this.sink.report('SYNTAX_WRONG_VALUE_TYPE', start.offset, end.offset,
        `Field "${field.name}" is a ${shortName(type)} message, not a string; write ${field.name}: ${wrapped}.`, {
          fix: { description: `Wrap the value: ${wrapped}`, edits: [{ start: start.offset, end: end.offset, text: wrapped }], safe: true },
        });
      // Keep what the user meant, so that later checks see the value.
      return { type, values: new Map([[only.name, String(item.value)]]) };
    }
    this.sink.report('SYNTAX_WRONG_VALUE_TYPE', start.offset, end.offset,
      `Field "${field.name}" is a message (${field.map ? 'a map entry' : shortName(type)}), not ${item.token === 'string' ? 'a string' : 'a scalar'}; write ${field.name} { ... }.`);
    return undefined;
  }

  private reportUnknownField(fieldNode: FieldNode, type: MessageInfo, enclosing: MessageInfo[], block: MessageNode): void {
    if (type.isMapEntry) {
      const valueType = type.fields[1]!.messageType;
      if (valueType?.byName.has(fieldNode.name)) {
        const { start, end } = fieldNode.nameSpan;
        this.sink.report('SYNTAX_UNKNOWN_FIELD', start.offset, end.offset,
          `A map entry has only "key" and "value"; put "${fieldNode.name}" inside the value: value { ${fieldNode.name}: ... }.`);
        return;
      }
    }
    const owner = [...enclosing].reverse().find((t) => !t.isMapEntry && t.byName.has(fieldNode.name));
    if (owner) {
      const { start, end } = fieldNode.nameSpan;
      this.sink.report('SYNTAX_UNKNOWN_FIELD', start.offset, end.offset,
        `Field "${fieldNode.name}" does not exist in ${type.isMapEntry ? 'a map entry' : shortName(type)}; it belongs to ${shortName(owner)}. Move it out of this block (or close the block before it).`);
      return;
    }
    const candidates = type.fields.map((f) => f.name);
    const respelled = respelledName(fieldNode.name, candidates);
    const suggestion = respelled ?? closestName(fieldNode.name, candidates);
    const where = type.isMapEntry ? 'a map entry (which has only "key" and "value")' : shortName(type);
    const { start, end } = fieldNode.nameSpan;
    this.sink.report('SYNTAX_UNKNOWN_FIELD', start.offset, end.offset,
      `Field "${fieldNode.name}" does not exist in ${where}` + (suggestion ? `; did you mean "${suggestion}"?` : '.'), suggestion
        ? { fix: { description: `Rename to ${suggestion}`, edits: [{ start: start.offset, end: end.offset, text: suggestion }], safe: suggestion === respelled && renameIsFree(block, type, suggestion) } }
        : {});
  }

  private field(fieldNode: FieldNode, field: FieldInfo, into: ProtoMessage, setAt: Map<string, FieldNode>, enclosing: MessageInfo[]): void {
    const value = fieldNode.value;
    let items: Array<ScalarNode | MessageNode>;
    if (value.kind === 'list') {
      if (!field.repeated) {
        this.sink.report('SYNTAX_WRONG_VALUE_TYPE', value.span.start.offset, value.span.end.offset,
          `Field "${field.name}" is not repeated, so it takes one value, not a list in "[ ]".`);
        return;
      }
      if (field.kind !== 'message' && !fieldNode.colonSpan) {
        const at = fieldNode.nameSpan.end.offset;
        this.sink.report('SYNTAX_MISSING_COLON', fieldNode.nameSpan.start.offset, value.span.start.offset + 1,
          `Missing ":" between field ${field.name} and its list; write ${field.name}: [ ... ].`, {
            fix: { description: 'Insert ":"', edits: [{ start: at, end: at, text: ':' }], safe: true },
          });
      }
      items = value.items;
    } else {
      items = [value];
    }
    for (const item of items) {
      if (field.kind === 'message') this.messageItem(fieldNode, field, item, into, setAt, enclosing);
      else this.scalarItem(fieldNode, field, item, into, setAt);
    }
  }

  private messageItem(fieldNode: FieldNode, field: FieldInfo, item: ScalarNode | MessageNode, into: ProtoMessage, setAt: Map<string, FieldNode>, enclosing: MessageInfo[]): void {
    let sub: ProtoMessage;
    if (item.kind === 'message') {
      sub = this.message(item, field.messageType!, enclosing);
    } else {
      const recovered = this.reportScalarForMessage(field, item);
      if (!recovered) return;
      sub = recovered;
    }
    if (field.map) {
      const keyField = field.messageType!.fields[0]!;
      const valueField = field.messageType!.fields[1]!;
      const key = (sub.values.get('key') as ScalarValue | undefined) ?? defaultScalar(keyField);
      const entryValue = (sub.values.get('value') as ProtoValue | undefined) ??
        (valueField.kind === 'message' ? { type: valueField.messageType!, values: new Map() } : defaultScalar(valueField));
      let map = into.values.get(field.name) as Map<string, MapEntry> | undefined;
      if (!map) into.values.set(field.name, (map = new Map()));
      const keyString = mapKeyString(key);
      const earlier = map.get(keyString);
      if (earlier) {
        const { start, end } = item.span;
        this.sink.report('SYNTAX_DUPLICATE_MAP_KEY', start.offset, end.offset,
          `${field.name} has key ${JSON.stringify(keyString)} more than once (first at line ${earlier.line}); only this last entry counts. Remove the other one.`, { severity: 'warning' });
      }
      map.set(keyString, { key, value: entryValue, line: item.span.start.line });
    } else if (field.repeated) {
      this.push(into, field.name, sub);
    } else {
      const previous = setAt.get(field.name);
      if (previous) this.reportDuplicate(fieldNode, previous, 'error');
      setAt.set(field.name, fieldNode);
      into.values.set(field.name, sub);
    }
  }

  private scalarItem(fieldNode: FieldNode, field: FieldInfo, item: ScalarNode | MessageNode, into: ProtoMessage, setAt: Map<string, FieldNode>): void {
    if (item.kind !== 'message' && item.kind !== 'scalar') return;
    if (item.kind === 'message') {
      this.sink.report('SYNTAX_WRONG_VALUE_TYPE', item.span.start.offset, item.span.end.offset,
        `Field "${field.name}" is ${field.kind === 'enum' ? `an enum (${field.enumType!.fullName})` : `a ${field.scalar}`}, not a message; write ${field.name}: <value>.`);
      return;
    }
    const decoded = decodeScalar(item, field);
    if (!decoded.ok) {
      this.sink.report(decoded.ruleId, item.span.start.offset, item.span.end.offset, decoded.message, decoded.fix ? { fix: decoded.fix } : {});
      if (decoded.ruleId !== 'SYNTAX_UNQUOTED_STRING') return;
      // The value is still what the user meant; keep it so later checks see the config.
    }
    const value: ScalarValue = decoded.ok ? decoded.value : String(item.value);
    item.value = typeof value === 'bigint' && value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
    if (field.repeated) {
      this.push(into, field.name, value);
      return;
    }
    const previous = setAt.get(field.name);
    if (previous && into.values.has(field.name)) {
      const prior = into.values.get(field.name);
      const present = field.oneof !== undefined || !isDefaultScalar(field, prior);
      this.reportDuplicate(fieldNode, previous, present ? 'error' : 'warning');
    }
    setAt.set(field.name, fieldNode);
    into.values.set(field.name, value);
  }

  private push(into: ProtoMessage, name: string, value: ProtoValue): void {
    const list = into.values.get(name) as ProtoValue[] | undefined;
    if (list) list.push(value);
    else into.values.set(name, [value]);
  }

  private reportDuplicate(fieldNode: FieldNode, previous: FieldNode, severity: 'error' | 'warning'): void {
    const { start, end } = fieldNode.nameSpan;
    this.sink.report('SYNTAX_DUPLICATE_FIELD', start.offset, end.offset,
      `Field "${fieldNode.name}" is not repeated but is already set at line ${previous.nameSpan.start.line}; ` +
      (severity === 'error' ? 'Triton rejects the config. Remove one of them.' : 'the first value is the default, so this one silently replaces it. Remove one of them.'),
      { severity });
  }
}

/**
 * Whether a field renamed to `name` in `block` stays alone: a non-repeated field already written
 * there, or another member of its oneof, would turn the rename into a conflict.
 */
function renameIsFree(block: MessageNode, type: MessageInfo, name: string): boolean {
  const field = type.byName.get(name)!;
  if (field.repeated || field.map) return true;
  return !block.fields.some((f) => f.name === name || (field.oneof !== undefined && type.byName.get(f.name)?.oneof === field.oneof));
}
