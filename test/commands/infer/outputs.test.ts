import { describe, expect, it } from 'vitest';
import { decodeValues, formatReports, reportOutput } from '../../../src/commands/infer/outputs.js';

const fp32 = (values: number[], shape: number[]) => ({ name: 'logits', datatype: 'FP32' as const, shape, data: new Uint8Array(Float32Array.from(values).buffer) });

describe('infer outputs', () => {
  it('ranks classes per batch item with labels and softmax', () => {
    const report = reportOutput(fp32([0, 2, 1, 5, 0, 0], [2, 3]), ['cat', 'dog', 'eel'], 2, true);
    expect(report.topK).toEqual([
      [{ index: 1, label: 'dog', score: 2, softmax: expect.closeTo(0.665, 3) }, { index: 2, label: 'eel', score: 1, softmax: expect.closeTo(0.245, 3) }],
      [{ index: 0, label: 'cat', score: 5, softmax: expect.closeTo(0.987, 3) }, { index: 1, label: 'dog', score: 0, softmax: expect.closeTo(0.0066, 3) }],
    ]);
    const text = formatReports([report]);
    expect(text).toContain('logits FP32 [2, 3]\n  [0, 2, 1, 5, 0, 0]\n  item 0 top 2:\n    "dog"  index 1  score 2  softmax 0.6652\n');
    expect(reportOutput(fp32([1, 2], [1, 2]), undefined, 3, true).topK).toBeUndefined();
  });

  it('decodes every datatype, including half floats and BYTES', () => {
    expect(decodeValues({ name: 'h', datatype: 'FP16', shape: [3], data: new Uint8Array(Uint16Array.from([0x3c00, 0xc000, 0x7c00]).buffer) })).toEqual([1, -2, Infinity]);
    expect(decodeValues({ name: 'b', datatype: 'BF16', shape: [1], data: new Uint8Array(Uint16Array.from([0x3f80]).buffer) })).toEqual([1]);
    expect(decodeValues({ name: 'i', datatype: 'INT64', shape: [2], data: new Uint8Array(BigInt64Array.from([-3n, 7n]).buffer) })).toEqual([-3, 7]);
    expect(decodeValues({ name: 'ok', datatype: 'BOOL', shape: [2], data: Uint8Array.from([1, 0]) })).toEqual([true, false]);
    expect(decodeValues({ name: 's', datatype: 'BYTES', shape: [1], data: Uint8Array.from([2, 0, 0, 0, 104, 105]) })).toEqual(['hi']);
    const long = formatReports([reportOutput(fp32(Array.from({ length: 20 }, (_, i) => i / 4), [20]), undefined, 3, false)]);
    expect(long).toContain(', … (20 values)]');
  });
});
