import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { classify, readOutputLabels } from '../../../src/core/server/classification.js';
import type { InferTensor } from '../../../src/core/executor/types.js';
import type { ModelConfig } from '../../../src/core/config/model-config.js';

const strings = (t: InferTensor): string[] => {
  const buf = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const out: string[] = [];
  for (let at = 0; at < buf.byteLength; at += 4 + buf.readUInt32LE(at)) out.push(buf.subarray(at + 4, at + 4 + buf.readUInt32LE(at)).toString('utf8'));
  return out;
};
const tensor = (datatype: InferTensor['datatype'], shape: number[], data: ArrayBufferView): InferTensor => ({ name: 'Y', datatype, shape, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) });

describe('classify (Triton\'s classification extension)', () => {
  it('prints integers plain and keeps k within the class count', () => {
    const out = classify(tensor('INT64', [3], new BigInt64Array([5n, -2n, 9n])), 10, ['a', 'b'], false);
    expect(out).toMatchObject({ datatype: 'BYTES', shape: [3] });
    expect(strings(out)).toEqual(['9:2', '5:0:a', '-2:1:b']);
  });

  it('prints FP64 with 9 decimals, and nan/inf as C++ does', () => {
    const out = classify(tensor('FP64', [1, 3], new Float64Array([Infinity, 0.5, NaN])), 3, undefined, true);
    expect(out.shape).toEqual([1, 3]);
    expect(strings(out)).toEqual(['inf:0', '0.500000000:1', 'nan:2']);
  });

  it('refuses a type Triton has no class results for', () => {
    expect(() => classify(tensor('FP16', [2], new Uint16Array([0, 0])), 1, undefined, false)).toThrow(/class result not available for output 'Y' due to unsupported type 'FP16'/);
  });
});

describe('readOutputLabels', () => {
  it('reads one label per line, relative to the model directory, and refuses a file outside it', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-labels-'));
    try {
      writeFileSync(path.join(dir, 'labels.txt'), 'cat\r\ndog\n');
      const config = (file: string): ModelConfig => ({ output: [{ name: 'Y', data_type: 'TYPE_FP32', dims: [2], label_filename: file }] });
      expect(readOutputLabels(dir, config('labels.txt')).get('Y')).toEqual(['cat', 'dog']);
      expect(() => readOutputLabels(dir, config('../etc/passwd'))).toThrow(/output 'Y' label_filename "..\/etc\/passwd" is outside the model directory/);
      expect(() => readOutputLabels(dir, config('nope.txt'))).toThrow(/label_filename "nope.txt" is missing/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
