/**
 * The text-format language the official parsers accept, feature by feature, checked through the
 * protobuf JSON of the result (corpus conventions: 64-bit integers as strings, defaults left out).
 */
import { describe, expect, it } from 'vitest';
import { parseModelConfig, toProtoJson } from '../../../src/core/config/index.js';

function json(text: string): unknown {
  const result = parseModelConfig(text, 'c.pbtxt');
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return toProtoJson(result);
}

describe('text format', () => {
  it('accepts every block style: { }, : { }, < >, : < > and a brace on the next line', () => {
    expect(json('dynamic_batching { max_queue_delay_microseconds: 1 }')).toEqual({ dynamic_batching: { max_queue_delay_microseconds: '1' } });
    expect(json('dynamic_batching: { }')).toEqual({ dynamic_batching: {} });
    expect(json('dynamic_batching < preserve_ordering: true >')).toEqual({ dynamic_batching: { preserve_ordering: true } });
    expect(json('dynamic_batching: < >')).toEqual({ dynamic_batching: {} });
    expect(json('dynamic_batching\n{\n}\n')).toEqual({ dynamic_batching: {} });
    expect(json('version_policy: { latest { num_versions: 1 }}')).toEqual({ version_policy: { latest: { num_versions: 1 } } });
  });

  it('accepts lists and repeated keys, mixed, with optional separators', () => {
    expect(json('input { dims: [ 1, 2 ] dims: 3; dims: 4, dims: [] }')).toEqual({ input: [{ dims: ['1', '2', '3', '4'] }] });
    expect(json('input [ { name: "a" }, < name: "b" > ] input { name: "c" };')).toEqual({ input: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] });
    expect(json('input: [ ]')).toEqual({});
  });

  it('reads integers in decimal, hex and octal, and negative numbers with or without a space', () => {
    expect(json('max_batch_size: 0x10 input { dims: 010 dims: -1 dims: - 2 dims: 0 dims: -0x7fffffffffffffff }')).toEqual({
      max_batch_size: 16, input: [{ dims: ['8', '-1', '-2', '0', '-9223372036854775807'] }],
    });
    expect(json('dynamic_batching { priority_levels: 18446744073709551615 }')).toEqual({ dynamic_batching: { priority_levels: '18446744073709551615' } });
  });

  it('reads floats including exponents, a trailing f, inf and nan', () => {
    const result = json(`sequence_batching { direct { minimum_slot_utilization: .5 } control_input { control {
      fp32_false_true: [ 1e3, -2.5f, 0.1, inf, -Infinity, nan, 7 ] } } }`) as {
      sequence_batching: { direct: unknown; control_input: Array<{ control: Array<{ fp32_false_true: unknown[] }> }> };
    };
    expect(result.sequence_batching.direct).toEqual({ minimum_slot_utilization: 0.5 });
    expect(result.sequence_batching.control_input[0]!.control[0]!.fp32_false_true).toEqual([1000, -2.5, 0.1, 'Infinity', '-Infinity', 'NaN', 7]);
  });

  it('reads booleans in every spelling', () => {
    const spellings = ['true', 'True', 't', '1', 'false', 'False', 'f', '0'];
    const text = `sequence_batching { control_input { control { bool_false_true: [ ${spellings.join(', ')} ] } } }`;
    expect(json(text)).toEqual({ sequence_batching: { control_input: [{ control: [{ bool_false_true: [true, true, true, true, false, false, false, false] }] }] } });
  });

  it('reads enums by name and by number, keeping unknown numbers of open enums', () => {
    expect(json('input { data_type: 11 format: FORMAT_NCHW } instance_group { kind: 99 }')).toEqual({
      input: [{ data_type: 'TYPE_FP32', format: 'FORMAT_NCHW' }], instance_group: [{ kind: 99 }],
    });
  });

  it('reads strings: both quotes, escapes, and adjacent pieces', () => {
    expect(json(`name: 'it\\'s' "\\x41\\101\\u00e9\\n" 'x' "\\"q\\""`)).toEqual({ name: "it'sAA\u00e9\nx\"q\"" });
    expect(json('name: "\u4e2d\u6587 \u00e9"')).toEqual({ name: '\u4e2d\u6587 \u00e9' });
  });

  it('reads maps as entries: lists, repeated blocks, last key wins, missing key or value', () => {
    expect(json(`parameters [ { key: "a" value { string_value: "1" } }, { key: "b", value: { string_value: "2" } } ]
parameters: { key: "a" value: { string_value: "3" } }
parameters: {}
dynamic_batching { priority_queue_policy { key: 4294967296 value { max_queue_size: 2 } } }`)).toEqual({
      dynamic_batching: { priority_queue_policy: { 4294967296: { max_queue_size: 2 } } },
      parameters: { a: { string_value: '3' }, b: { string_value: '2' }, '': {} },
    });
    expect(parseModelConfig('parameters { key: "a" } parameters { key: "a" }', 'c').diagnostics.map((d) => [d.ruleId, d.severity]))
      .toEqual([['SYNTAX_DUPLICATE_MAP_KEY', 'warning']]);
  });

  it('leaves out defaults but keeps oneof members and empty messages that were written', () => {
    expect(json('name: "" max_batch_size: 0 input { data_type: TYPE_INVALID optional: false } model_warmup { inputs { key: "x" value { zero_data: false } } }'))
      .toEqual({ input: [{}], model_warmup: [{ inputs: { x: { zero_data: false } } }] });
  });

  it('skips comments anywhere, including a last line without a newline', () => {
    expect(json('# header\nname: # why\n  "a" # after\n# end')).toEqual({ name: 'a' });
  });

  it('reads CRLF files with positions on the right lines', () => {
    const result = parseModelConfig('name: "a"\r\nmax_batch_size: 8\r\ninput { dims: [ 1 ] }\r\n', 'c.pbtxt');
    expect(result.diagnostics).toEqual([]);
    expect(result.locate(['input', 0, 'dims', 0])?.start).toMatchObject({ line: 3, column: 17 });
    expect(parseModelConfig('name: "a\r\n', 'c').diagnostics[0]).toMatchObject({ ruleId: 'SYNTAX_UNTERMINATED_STRING', line: 1, column: 7, endColumn: 9 });
  });

  it('lists fields in field-number order whatever order they were written in', () => {
    expect(Object.keys(json('backend: "b" max_batch_size: 1 name: "n" platform: "p"') as object)).toEqual(['name', 'platform', 'max_batch_size', 'backend']);
  });
});
