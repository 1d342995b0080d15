/**
 * How deep a tensor's JSON values may nest, one bound for infer's `data` (numbers and strings) and
 * generate's fields: MAX_DATA_DEPTH levels are taken, one more is a 400 naming the tensor.
 */
import { describe, expect, it } from 'vitest';
import { decodeGenerateRequest } from '../../../../src/core/kserve/codec/generate.js';
import { jsonDataToBytes, MAX_DATA_DEPTH } from '../../../../src/core/kserve/codec/json-tensor.js';

/** [x] wrapped so that the element sits `levels` arrays deep (1: [x]). */
const nest = (x: unknown, levels: number): unknown[] => {
  let v: unknown = x;
  for (let i = 0; i < levels; i++) v = [v];
  return v as unknown[];
};

describe('nesting of JSON tensor values', () => {
  it('takes MAX_DATA_DEPTH levels and refuses one more, for numbers and strings', () => {
    expect(jsonDataToBytes(nest(7, MAX_DATA_DEPTH + 1), 'INT32', 1, 'x')).toEqual(new Uint8Array([7, 0, 0, 0]));
    expect(() => jsonDataToBytes(nest(7, MAX_DATA_DEPTH + 2), 'INT32', 1, 'x')).toThrow(`'data' of input 'x' is nested more than ${MAX_DATA_DEPTH} levels deep`);
    expect(jsonDataToBytes(nest('a', MAX_DATA_DEPTH + 1), 'BYTES', 1, 's')).toEqual(new Uint8Array([1, 0, 0, 0, 97]));
    expect(() => jsonDataToBytes(nest('a', MAX_DATA_DEPTH + 2), 'BYTES', 1, 's')).toThrow(`'data' of input 's' is nested more than ${MAX_DATA_DEPTH} levels deep`);
  });

  it('bounds a generate request\'s fields the same way, naming the field', () => {
    const inputs = [{ name: 'IN', datatype: 'INT32' as const, shape: [-1] }];
    const body = (levels: number) => Buffer.from(JSON.stringify({ IN: nest(5, levels) }));
    expect(decodeGenerateRequest(body(MAX_DATA_DEPTH + 1), inputs, false).inputs[0]!.shape).toEqual([1]);
    expect(() => decodeGenerateRequest(body(MAX_DATA_DEPTH + 2), inputs, false)).toThrow(`generate request field 'IN' is nested more than ${MAX_DATA_DEPTH} levels deep`);
  });
});
