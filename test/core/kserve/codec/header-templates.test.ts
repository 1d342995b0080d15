/**
 * A binary-extension header seen before is decoded from what was remembered of it
 * (header-templates.ts): the result must be the one a fresh decode gives, every field included.
 */
import { describe, expect, it } from 'vitest';
import { decodeHttpInferRequest } from '../../../../src/core/kserve/codec/http-infer-request.js';

describe('remembered binary headers', () => {
  it('decode to what a fresh decode gives, the model\'s request parameters included', () => {
    const header = Buffer.from(JSON.stringify({
      id: 'r1',
      parameters: { temperature: 'low', tokens: 3, stream: false, priority: 2, timeout: 100, sequence_id: 7, sequence_start: true },
      inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 2], parameters: { binary_data_size: 8 } }],
      outputs: [{ name: 'y', parameters: { binary_data: true } }],
    }));
    const body = (fill: number) => Buffer.concat([header, Buffer.from(new Float32Array([fill, fill]).buffer)]);
    const first = decodeHttpInferRequest(body(1), header.length);
    const again = decodeHttpInferRequest(body(2), header.length);
    expect(first.request.parameters).toEqual({ temperature: 'low', tokens: 3, stream: false });
    const plain = (d: typeof first) => ({ ...d.request, inputs: d.request.inputs.map((i) => ({ ...i, data: [...new Float32Array(Uint8Array.from(i.data).buffer)] })) });
    expect(plain(again)).toEqual({ ...plain(first), inputs: [{ ...plain(first).inputs[0], data: [2, 2] }] });
    expect(Object.keys(again.request)).toEqual(Object.keys(first.request));
    // A model that changes its request's parameters does not change the next one's.
    again.request.parameters!.tokens = 99;
    expect(decodeHttpInferRequest(body(3), header.length).request.parameters).toEqual({ temperature: 'low', tokens: 3, stream: false });
  });
});
