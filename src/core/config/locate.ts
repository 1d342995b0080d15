/**
 * Finds where a config path is written: ['input', 0, 'dims', 1], ['max_batch_size'],
 * ['parameters', 'device_ids', 'string_value']. Repeated fields are indexed across all the ways
 * they can be written (repeated keys and lists); for a non-repeated field given twice the last
 * one counts, as it does in the parsed config. A map key selects the last entry with that key.
 */
import type { ConfigPath, FieldNode, MessageNode, ScalarNode, Span } from './ast.js';
import type { MessageInfo } from './schema.js';

interface Item {
  field: FieldNode;
  node: ScalarNode | MessageNode;
}

function items(fields: FieldNode[]): Item[] {
  const out: Item[] = [];
  for (const field of fields) {
    if (field.value.kind === 'list') for (const node of field.value.items) out.push({ field, node });
    else out.push({ field, node: field.value });
  }
  return out;
}

function entryKey(entry: MessageNode): string {
  const key = [...entry.fields].reverse().find((f) => f.name === 'key');
  if (!key || key.value.kind !== 'scalar') return '';
  const v = key.value.value;
  return typeof v === 'boolean' ? (v ? 'true' : 'false') : String(v);
}

export function locatePath(root: MessageNode, schema: MessageInfo, path: ConfigPath, options: { name?: boolean } = {}): Span | undefined {
  let node: MessageNode = root;
  let type: MessageInfo = schema;
  let i = 0;
  while (i < path.length) {
    const segment = path[i];
    if (typeof segment !== 'string') return undefined;
    const field = type.byName.get(segment);
    if (!field) return undefined;
    const occurrences = node.fields.filter((f) => f.name === segment);
    if (occurrences.length === 0) return undefined;
    const isLast = i + 1 === path.length;
    if (field.map) {
      if (isLast) return options.name ? occurrences[0]!.nameSpan : occurrences[0]!.value.span;
      const key = String(path[i + 1]);
      const entries = items(occurrences).filter((it): it is { field: FieldNode; node: MessageNode } => it.node.kind === 'message');
      const match = [...entries].reverse().find((it) => entryKey(it.node) === key);
      if (!match) return undefined;
      const valueField = [...match.node.fields].reverse().find((f) => f.name === 'value');
      if (i + 2 === path.length) {
        if (options.name) return match.node.fields.find((f) => f.name === 'key')?.value.span ?? match.field.nameSpan;
        return valueField?.value.span ?? match.node.span;
      }
      const valueType = field.messageType!.fields[1]!.messageType;
      if (!valueField || valueField.value.kind !== 'message' || !valueType) return undefined;
      node = valueField.value;
      type = valueType;
      i += 2;
    } else if (field.repeated) {
      if (isLast) return options.name ? occurrences[0]!.nameSpan : occurrences[0]!.value.span;
      const index = path[i + 1];
      if (typeof index !== 'number') return undefined;
      const item = items(occurrences)[index];
      if (!item) return undefined;
      if (i + 2 === path.length) return options.name ? item.field.nameSpan : item.node.span;
      if (item.node.kind !== 'message' || !field.messageType) return undefined;
      node = item.node;
      type = field.messageType;
      i += 2;
    } else {
      const last = occurrences[occurrences.length - 1]!;
      if (isLast) return options.name ? last.nameSpan : last.value.span;
      if (last.value.kind !== 'message' || !field.messageType) return undefined;
      node = last.value;
      type = field.messageType;
      i += 1;
    }
  }
  return options.name ? undefined : node.span;
}
