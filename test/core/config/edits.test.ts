/**
 * Edits change only what they must: every other byte (comments, spacing, order) stays as it was.
 */
import { describe, expect, it } from 'vitest';
import {
  appendTopLevelEdit,
  applyEdits,
  applyFixes,
  parseModelConfig,
  printFields,
  replaceTopLevelEdits,
  setScalar,
  writeModelWarmup,
} from '../../../src/core/config/index.js';

const original = `# Licence header
name: "mnist"   # the model
max_batch_size: 8
input [
  {
    name: "Input3"
    data_type: TYPE_FP32
    dims: [ 1, 28, 28 ]
  }
]
dynamic_batching {
  preferred_batch_size: [ 4, 8 ]
}
instance_group { kind: KIND_CPU }
`;

describe('applyEdits and applyFixes', () => {
  it('applies non-overlapping edits in any order against the original offsets', () => {
    expect(applyEdits('abcdef', [{ start: 4, end: 5, text: 'E' }, { start: 0, end: 1, text: 'AA' }, { start: 6, end: 6, text: '!' }])).toBe('AAbcdEf!');
    expect(() => applyEdits('abcdef', [{ start: 0, end: 3, text: '' }, { start: 2, end: 4, text: '' }])).toThrow(/Overlapping/);
    expect(() => applyEdits('abc', [{ start: 2, end: 9, text: '' }])).toThrow(/out-of-range/);
  });

  it('skips a fix that overlaps one already applied', () => {
    const a = { description: 'a', edits: [{ start: 0, end: 2, text: 'X' }], safe: true };
    const b = { description: 'b', edits: [{ start: 1, end: 3, text: 'Y' }], safe: true };
    const c = { description: 'c', edits: [{ start: 4, end: 4, text: 'Z' }], safe: true };
    const result = applyFixes('abcdef', [a, b, c]);
    expect(result.text).toBe('XcdZef');
    expect(result.applied).toEqual([a, c]);
    expect(result.skipped).toEqual([b]);
  });
});

describe('setScalar', () => {
  it('replaces a written value and nothing else', () => {
    expect(setScalar(original, 'c', ['max_batch_size'], 16)).toBe(original.replace('max_batch_size: 8', 'max_batch_size: 16'));
    expect(setScalar(original, 'c', ['name'], 'mnist "v2"')).toBe(original.replace('"mnist"', '"mnist \\"v2\\""'));
    expect(setScalar(original, 'c', ['input', 0, 'dims', 0], -1)).toBe(original.replace('[ 1, 28', '[ -1, 28'));
    expect(setScalar(original, 'c', ['input', 0, 'data_type'], 'TYPE_FP16')).toBe(original.replace('TYPE_FP32', 'TYPE_FP16'));
  });

  it('adds a missing field inside its block, matching the block\'s layout', () => {
    expect(setScalar(original, 'c', ['dynamic_batching', 'max_queue_delay_microseconds'], 100)).toBe(original.replace(
      '  preferred_batch_size: [ 4, 8 ]\n}', '  preferred_batch_size: [ 4, 8 ]\n  max_queue_delay_microseconds: 100\n}'));
    expect(setScalar(original, 'c', ['instance_group', 0, 'count'], 2)).toBe(original.replace(
      'instance_group { kind: KIND_CPU }', 'instance_group { kind: KIND_CPU count: 2 }'));
    expect(setScalar(original, 'c', ['input', 0, 'optional'], true)).toBe(original.replace(
      '    dims: [ 1, 28, 28 ]\n', '    dims: [ 1, 28, 28 ]\n    optional: true\n'));
  });

  it('creates missing enclosing blocks and map entries at the end of the file', () => {
    expect(setScalar(original, 'c', ['backend'], 'ge')).toBe(`${original}backend: "ge"\n`);
    expect(setScalar(original, 'c', ['version_policy', 'latest', 'num_versions'], 2))
      .toBe(`${original}version_policy { latest { num_versions: 2 } }\n`);
    const withParam = setScalar(original, 'c', ['parameters', 'device_ids', 'string_value'], '0,1');
    expect(withParam).toBe(`${original}parameters { key: "device_ids" value { string_value: "0,1" } }\n`);
    expect(setScalar(withParam, 'c', ['parameters', 'device_ids', 'string_value'], '2')).toBe(withParam.replace('"0,1"', '"2"'));
    expect(parseModelConfig(withParam, 'c').config.parameters).toEqual({ device_ids: { string_value: '0,1' } });
  });

  it('refuses paths the schema does not have and values of the wrong type', () => {
    expect(() => setScalar(original, 'c', ['max_batch'], 1)).toThrow(/does not name a field/);
    expect(() => setScalar(original, 'c', ['input', 3, 'name'], 'x')).toThrow(/repeated field input/);
    expect(() => setScalar(original, 'c', ['max_batch_size'], 'eight')).toThrow(/expected an integer/);
    expect(() => setScalar(original, 'c', ['dynamic_batching'], 1)).toThrow(/single scalar/);
  });
});

describe('top-level blocks', () => {
  const warmup = [{ name: 'sample', batch_size: 1, inputs: { Input3: { data_type: 'TYPE_FP32', dims: [1, 28, 28], zero_data: true } } }];
  const warmupText = printFields({ model_warmup: warmup });

  it('appends model_warmup when there is none', () => {
    const written = writeModelWarmup(original, 'c', warmup);
    expect(written).toBe(original + warmupText);
    expect(parseModelConfig(written, 'c').config.model_warmup).toEqual(warmup);
    expect(writeModelWarmup('name: "a"', 'c', warmup)).toBe(`name: "a"\n${warmupText}`);
  });

  it('replaces existing model_warmup blocks where the first one was, keeping everything else', () => {
    const withOld = `name: "m"
model_warmup [ { name: "old" batch_size: 1 } ]  # generated
max_batch_size: 4
model_warmup { name: "older" }
# trailing comment
`;
    expect(writeModelWarmup(withOld, 'c', warmup)).toBe(`name: "m"
${warmupText}max_batch_size: 4
# trailing comment
`);
    expect(writeModelWarmup(writeModelWarmup(withOld, 'c', warmup), 'c', warmup)).toBe(writeModelWarmup(withOld, 'c', warmup));
  });

  it('keeps CRLF line endings in CRLF files', () => {
    const crlf = original.replace(/\n/g, '\r\n');
    expect(setScalar(crlf, 'c', ['dynamic_batching', 'max_queue_delay_microseconds'], 100)).toBe(
      setScalar(original, 'c', ['dynamic_batching', 'max_queue_delay_microseconds'], 100).replace(/\n/g, '\r\n'));
    expect(writeModelWarmup(crlf, 'c', warmup)).toBe((original + warmupText).replace(/\n/g, '\r\n'));
    const withOld = 'name: "m"\r\nmodel_warmup { name: "old" }\r\nmax_batch_size: 4\r\n';
    expect(writeModelWarmup(withOld, 'c', warmup)).toBe(`name: "m"\r\n${warmupText.replace(/\n/g, '\r\n')}max_batch_size: 4\r\n`);
  });

  it('replaces a field that shares its line with others without touching them', () => {
    const text = 'name: "m" max_batch_size: 4, backend: "x"\n';
    const result = parseModelConfig(text, 'c');
    expect(applyEdits(text, replaceTopLevelEdits(result, text, 'max_batch_size', 'max_batch_size: 8\n'))).toBe('name: "m" max_batch_size: 8 backend: "x"\n');
    expect(appendTopLevelEdit('', 'a: 1')).toEqual({ start: 0, end: 0, text: 'a: 1\n' });
  });
});
