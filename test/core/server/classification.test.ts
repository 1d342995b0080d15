/**
 * The classification extension as the models JS answers reach it (executor `classify`, the
 * native implementation every path shares: native/test/classification tests it in depth), and
 * the label files it reads at load.
 */
import '../../helpers/test-addon.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { classify, classLabels } from '../../../src/core/executor/classification.js';
import { InferError, type InferTensor } from '../../../src/core/executor/types.js';
import { loadOutputLabels, readOutputLabels } from '../../../src/core/server/output-labels.js';
import type { ModelConfig } from '../../../src/core/config/model-config.js';
import type { NativeHttpFrontend } from '../../../src/core/server/http/native-frontend.js';
import { startTestServer } from './helpers/test-server.js';
import { call, grpcClient } from './helpers/grpc-client.js';

const strings = (t: InferTensor): string[] => {
  const buf = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const out: string[] = [];
  for (let at = 0; at < buf.byteLength; at += 4 + buf.readUInt32LE(at)) out.push(buf.subarray(at + 4, at + 4 + buf.readUInt32LE(at)).toString('utf8'));
  return out;
};
const tensor = (datatype: InferTensor['datatype'], shape: number[], data: ArrayBufferView): InferTensor => ({ name: 'Y', datatype, shape, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) });

describe('classify (Triton\'s classification extension)', () => {
  it('prints integers plain and keeps k within the class count', () => {
    const out = classify(tensor('INT64', [3], new BigInt64Array([5n, -2n, 9n])), 10, classLabels(['a', 'b']), false);
    expect(out).toMatchObject({ name: 'Y', datatype: 'BYTES', shape: [3] });
    expect(strings(out)).toEqual(['9:2', '5:0:a', '-2:1:b']);
  });

  it('prints FP64 with 9 decimals, and nan/inf as C++ does', () => {
    const out = classify(tensor('FP64', [1, 3], new Float64Array([Infinity, 0.5, NaN])), 3, undefined, true);
    expect(out.shape).toEqual([1, 3]);
    expect(strings(out)).toEqual(['inf:0', '0.500000000:1', 'nan:2']);
  });

  it('per batch entry, ties keep the lower index first; NaN ranks below every number', () => {
    const out = classify(tensor('FP32', [2, 4], new Float32Array([0.1, 0.7, 0.2, 0.7, NaN, 3, -Infinity, 3])), 3, classLabels(['cat', '', 'bird']), true);
    expect(out.shape).toEqual([2, 3]);
    expect(strings(out)).toEqual(['0.699999988:1', '0.699999988:3', '0.200000003:2:bird', '3.000000000:1', '3.000000000:3', '-inf:2:bird']);
  });

  it('prints values as Triton does, with std::fixed and 9 decimals', () => {
    const values = [0.0009765625, -0.0009765625, -0, 1e21, 123.4567890123];
    const out = classify(tensor('FP64', [5], new Float64Array(values)), 5, undefined, false);
    // Exact ties at the tenth decimal go to even; -0 keeps its sign; every integer digit.
    expect(strings(out)).toEqual(['1000000000000000000000.000000000:3', '123.456789012:4', '0.000976562:0', '-0.000000000:2', '-0.000976562:1']);
  });

  it('refuses a type Triton has no class results for, as an INVALID_ARGUMENT', () => {
    for (const datatype of ['FP16', 'BF16', 'BOOL', 'BYTES'] as const) {
      let error: unknown;
      try {
        classify(tensor(datatype, [2], new Uint8Array(8)), 1, undefined, false);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(InferError);
      expect((error as InferError).message).toBe(`class result not available for output 'Y' due to unsupported type '${datatype}'`);
      expect((error as InferError).failure).toBe('INVALID_ARGUMENT');
    }
  });

  it('takes only label handles made by classLabels', () => {
    expect(() => classify(tensor('FP32', [1], new Float32Array([1])), 1, {} as never, false)).toThrow(/labels must come from labels\(\)/);
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
      // What a loaded model keeps: the same labels, held natively.
      const held = loadOutputLabels(dir, config('labels.txt')).get('Y');
      expect(strings(classify(tensor('INT32', [3], new Int32Array([1, 3, 2])), 3, held, false))).toEqual(['3:1:dog', '2:2', '1:0:cat']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('class results of a model JS runs (never published to the native routes)', () => {
  it('come from the same implementation over HTTP and gRPC', async () => {
    const t = await startTestServer();
    const client = grpcClient(t.grpc);
    try {
      const front = t.server.http as NativeHttpFrontend;
      const before = front.forwarded;
      const data = [0.1, 0.7, 0.2, 0.7, 4, 3, 2, 1];
      const inputs = ['INPUT0', 'INPUT1'].map((name) => ({ name, datatype: 'FP32', shape: [2, 4], data }));
      const res = await fetch(`${t.http}/v2/models/simple/infer`, { method: 'POST', body: JSON.stringify({ inputs, outputs: [{ name: 'OUTPUT0', parameters: { classification: 2 } }] }) });
      expect(await res.json()).toMatchObject({ outputs: [{ name: 'OUTPUT0', datatype: 'BYTES', shape: [2, 2], data: ['0.699999988:1', '0.699999988:3', '4.000000000:0', '3.000000000:1'] }] });
      expect(front.forwarded).toBe(before + 1); // answered by JS
      const reply = (await call(client, 'ModelInfer', {
        model_name: 'simple',
        inputs: inputs.map(({ name, datatype, shape }) => ({ name, datatype, shape, contents: { fp32_contents: data } })),
        outputs: [{ name: 'OUTPUT1', parameters: { class_count: { int64_param: 1 } } }],
      })) as { raw_output_contents: Uint8Array[] };
      expect(strings({ name: 'OUTPUT1', datatype: 'BYTES', shape: [2, 1], data: reply.raw_output_contents[0]! })).toEqual(['0.699999988:1', '4.000000000:0']);
    } finally {
      client.close();
      await t.stop();
    }
  });
});
