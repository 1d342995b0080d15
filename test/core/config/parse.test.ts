/**
 * The parsed config, spans and `locate` on ordinary configs: the contract the lint rules use.
 */
import { describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/core/config/index.js';

const text = `name: "mnist"
max_batch_size: 8
input [
  {
    name: "x"
    data_type: TYPE_FP32
    dims: [ 1, 28, 28 ]
  }
]
input { name: "y" data_type: TYPE_INT64 dims: -1 dims: 4 }
parameters { key: "device_ids" value: { string_value: "0,1" } }
parameters [ { key: "static_model", value { string_value: "1" } } ]
dynamic_batching { max_queue_delay_microseconds: 100 preferred_batch_size: [ 4, 8 ] }
instance_group [ { kind: KIND_CPU, count: 2 } ]
version_policy: { specific { versions: [1, 3] }}
`;

/** The 1-based position of the n-th occurrence of `needle` on a 1-based line of `text`. */
function at(line: number, needle: string, nth = 1): { line: number; column: number } {
  const content = text.split('\n')[line - 1]!;
  let index = -1;
  for (let i = 0; i < nth; i++) index = content.indexOf(needle, index + 1);
  if (index < 0) throw new Error(`${needle} not on line ${line}`);
  return { line, column: index + 1 };
}

describe('parseModelConfig', () => {
  const result = parseModelConfig(text, 'mnist/config.pbtxt');

  it('builds the plain config with proto names, numbers for 64-bit ints and maps as objects', () => {
    expect(result.diagnostics).toEqual([]);
    expect(result.config).toEqual({
      name: 'mnist',
      version_policy: { specific: { versions: [1, 3] } },
      max_batch_size: 8,
      input: [
        { name: 'x', data_type: 'TYPE_FP32', dims: [1, 28, 28] },
        { name: 'y', data_type: 'TYPE_INT64', dims: [-1, 4] },
      ],
      instance_group: [{ kind: 'KIND_CPU', count: 2 }],
      dynamic_batching: { preferred_batch_size: [4, 8], max_queue_delay_microseconds: 100 },
      parameters: { device_ids: { string_value: '0,1' }, static_model: { string_value: '1' } },
    });
  });

  it('locates values across lists and repeated keys', () => {
    expect(result.locate(['input', 0, 'dims', 1])?.start).toMatchObject({ line: 7, column: 16 });
    expect(result.locate(['input', 1, 'dims', 1])).toMatchObject({ start: at(10, '4 }'), end: { line: 10, column: at(10, '4 }').column + 1 } });
    expect(result.locate(['input', 1, 'name'])?.start).toMatchObject(at(10, '"y"'));
    expect(result.locate(['input', 2])).toBeUndefined();
  });

  it('locates scalars, field names and map entries', () => {
    expect(result.locate(['max_batch_size'])).toMatchObject({ start: { line: 2, column: 17, offset: 30 }, end: { line: 2, column: 18 } });
    expect(result.locate(['max_batch_size'], { name: true })).toMatchObject({ start: { line: 2, column: 1 }, end: { line: 2, column: 15 } });
    expect(result.locate(['parameters', 'device_ids'])?.start).toMatchObject({ line: 11, column: 39 });
    expect(result.locate(['parameters', 'device_ids'], { name: true })).toMatchObject({ start: at(11, '"device_ids"'), end: { line: 11, column: 31 } });
    expect(result.locate(['parameters', 'static_model', 'string_value'])?.start).toMatchObject(at(12, '"1"'));
    expect(result.locate(['dynamic_batching', 'preferred_batch_size', 1])?.start).toMatchObject(at(13, '8'));
    expect(result.locate(['version_policy', 'specific', 'versions', 1])?.start).toMatchObject(at(15, '3'));
    expect(result.locate(['nope'])).toBeUndefined();
    expect(result.locate(['parameters', 'missing'])).toBeUndefined();
  });

  it('keeps spans and exact text on every node', () => {
    const field = result.root.fields[1]!;
    expect(field.name).toBe('max_batch_size');
    expect(field.value).toMatchObject({ kind: 'scalar', token: 'number', text: '8', value: 8 });
    expect(text.slice(field.span.start.offset, field.span.end.offset)).toBe('max_batch_size: 8');
    const input = result.root.fields[2]!;
    expect(input.value.kind).toBe('list');
    expect(text.slice(input.value.span.start.offset, input.value.span.end.offset)).toMatch(/^\[[\s\S]*\]$/);
  });
});
