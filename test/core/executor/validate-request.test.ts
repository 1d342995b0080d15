import { describe, expect, it } from 'vitest';
import { InferError, type InferRequest } from '../../../src/core/executor/types.js';
import { validateRequest, type RequestContract } from '../../../src/core/executor/validate-request.js';

const mnist: RequestContract = {
  name: 'mnist',
  maxBatchSize: 16,
  maxRequestBatch: 16,
  inputs: [
    { name: 'image', datatype: 'FP32', shape: [-1, 1, 28, 28] },
    { name: 'scale', datatype: 'INT64', shape: [-1, 1] },
  ],
  outputs: [
    { name: 'logits', datatype: 'FP32', shape: [-1, 10] },
    { name: 'probs', datatype: 'FP32', shape: [-1, 10] },
  ],
  optionalInputs: new Set(),
};

function image(shape: number[], bytes = shape.reduce((a, b) => a * b, 1) * 4) {
  return { name: 'image', datatype: 'FP32' as const, shape, data: new Uint8Array(bytes) };
}
function scale(rows: number) {
  return { name: 'scale', datatype: 'INT64' as const, shape: [rows, 1], data: new Uint8Array(rows * 8) };
}
function fails(request: InferRequest, contract = mnist): InferError {
  try {
    validateRequest(contract, request);
  } catch (err) {
    expect(err).toBeInstanceOf(InferError);
    return err as InferError;
  }
  throw new Error('expected the request to be rejected');
}

describe('validateRequest', () => {
  it('orders inputs as the model declares them and keeps the caller bytes (no copy)', () => {
    const img = image([2, 1, 28, 28]);
    const v = validateRequest(mnist, { inputs: [scale(2), img] });
    expect(v.datas[0]).toBe(img.data);
    expect(v.shapes).toEqual([[2, 1, 28, 28], [2, 1]]);
    expect(v.outputMask).toBe(-1);
    expect(v.outputIndexes).toEqual([0, 1]);
  });

  it("uses Triton's wording for a shape without the batch dimension", () => {
    const err = fails({ inputs: [image([1, 28, 28]), scale(1)] });
    expect(err.status).toBe(400);
    expect(err.message).toBe(
      "unexpected shape for input 'image' for model 'mnist'. Expected [-1,1,28,28], got [1,28,28]. NOTE: Setting a " +
        'non-zero max_batch_size in the model config requires a batch dimension to be prepended to each input shape. ' +
        'If you want to specify the full shape including the batch dim in your input dims config, try setting ' +
        'max_batch_size to zero. See the model configuration docs for more info on max_batch_size.',
    );
  });

  it('reports a wrong non-batch dimension without the batching note', () => {
    expect(fails({ inputs: [image([1, 1, 28, 27]), scale(1)] }).message).toBe(
      "unexpected shape for input 'image' for model 'mnist'. Expected [-1,1,28,28], got [1,1,28,27].",
    );
  });

  it('limits the batch size to max_batch_size (or the largest gear)', () => {
    expect(fails({ inputs: [image([17, 1, 28, 28]), scale(17)] }).message).toBe(
      "inference request batch-size must be <= 16 for 'mnist'",
    );
    const geared = { ...mnist, maxRequestBatch: 8 };
    expect(fails({ inputs: [image([9, 1, 28, 28]), scale(9)] }, geared).message).toBe(
      "inference request batch-size must be <= 8 for 'mnist'",
    );
    expect(fails({ inputs: [image([0, 1, 28, 28]), scale(0)] }).message).toBe("inference request batch-size must be >= 1 for 'mnist'");
  });

  it('rejects inputs whose batch sizes differ', () => {
    expect(fails({ inputs: [image([2, 1, 28, 28]), scale(3)] }).message).toBe(
      "input 'scale' batch size does not match other inputs for 'mnist'",
    );
  });

  it('checks datatype and byte size', () => {
    expect(fails({ inputs: [{ ...image([1, 1, 28, 28]), datatype: 'FP64' }, scale(1)] }).message).toBe(
      "inference input 'image' data-type is 'FP64', but model 'mnist' expects 'FP32'",
    );
    expect(fails({ inputs: [image([1, 1, 28, 28], 100), scale(1)] }).message).toBe(
      "input byte size mismatch for input 'image' for model 'mnist'. Expected 3136, got 100",
    );
  });

  it('names unknown, duplicated and missing inputs', () => {
    expect(fails({ inputs: [{ ...image([1, 1, 28, 28]), name: 'img' }] }).message).toBe(
      "unexpected inference input 'img' for model 'mnist'; its inputs are ['image','scale']",
    );
    expect(fails({ inputs: [image([1, 1, 28, 28]), image([1, 1, 28, 28])] }).message).toBe(
      "input 'image' appears more than once in the request for model 'mnist'",
    );
    expect(fails({ inputs: [image([1, 1, 28, 28])] }).message).toBe(
      "expected 2 inputs but got 1 inputs for model 'mnist'. Got input(s) ['image'], but missing required input(s) ['scale']. " +
        'Please provide all required input(s).',
    );
  });

  it('selects requested outputs and rejects unknown ones', () => {
    const v = validateRequest(mnist, { inputs: [image([1, 1, 28, 28]), scale(1)], outputs: ['probs'] });
    expect(v.outputIndexes).toEqual([1]);
    expect(v.outputMask).toBe(2);
    expect(fails({ inputs: [image([1, 1, 28, 28]), scale(1)], outputs: ['nope'] }).message).toBe(
      "unexpected inference output 'nope' for model 'mnist'",
    );
  });

  it('checks priority and timeout values', () => {
    expect(fails({ inputs: [image([1, 1, 28, 28]), scale(1)], priority: -1 }).message).toContain('priority');
    expect(fails({ inputs: [image([1, 1, 28, 28]), scale(1)], timeoutUs: 1.5 }).message).toContain('timeout');
  });

  it('counts BYTES elements from their length prefixes', () => {
    const text: RequestContract = {
      name: 't',
      maxBatchSize: 0,
      maxRequestBatch: 1,
      inputs: [{ name: 's', datatype: 'BYTES', shape: [2] }],
      outputs: [],
      optionalInputs: new Set(),
    };
    const two = new Uint8Array([1, 0, 0, 0, 97, 2, 0, 0, 0, 98, 99]);
    expect(validateRequest(text, { inputs: [{ name: 's', datatype: 'BYTES', shape: [2], data: two }] }).datas[0]).toBe(two);
    expect(fails({ inputs: [{ name: 's', datatype: 'BYTES', shape: [2], data: two.subarray(0, 5) }] }, text).message).toBe(
      "unexpected number of string elements for input 's' for model 't'. Expected 2, got 1",
    );
    expect(fails({ inputs: [{ name: 's', datatype: 'BYTES', shape: [2], data: two.subarray(0, 7) }] }, text).message).toContain(
      'is not valid BYTES data',
    );
  });
});
