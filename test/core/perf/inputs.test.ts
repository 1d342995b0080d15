import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import type { ModelDescription } from '../../../src/core/kserve/client/types.js';
import { buildRequests, checkBatchSize, resolveSampleDims } from '../../../src/core/perf/inputs.js';
import { splitBytesElements } from '../../../src/core/kserve/codec/bytes-elements.js';

const model: ModelDescription = {
  name: 'm', version: '1', maxBatchSize: 8,
  inputs: [
    { name: 'image', datatype: 'FP32', shape: [-1, 3, -1] },
    { name: 'scale', datatype: 'INT64', shape: [-1, 1] },
  ],
  outputs: [{ name: 'out', datatype: 'FP32', shape: [-1, 3] }],
};

function message(fn: () => unknown): string {
  try { fn(); } catch (err) { expect(err).toBeInstanceOf(UsageError); return (err as Error).message; }
  throw new Error('expected a UsageError');
}

describe('shapes', () => {
  it('names each input that needs --shape and shows the flag', () => {
    expect(message(() => resolveSampleDims(model, {}))).toBe(
      'model "m" has dynamic dims in image [3,-1]; pass the shape to send for each, e.g. --shape image:3,1');
  });

  it('fills dynamic dims from --shape and keeps static ones', () => {
    expect(resolveSampleDims(model, { image: [3, 5] })).toEqual({ image: [3, 5], scale: [1] });
  });

  it('rejects a --shape that breaks a fixed dim or names an unknown input', () => {
    expect(message(() => resolveSampleDims(model, { image: [4, 5] }))).toContain('does not fit input "image" declared as [3,-1]');
    expect(message(() => resolveSampleDims(model, { image: [3, 5], imgae: [1] }))).toContain('"imgae", which model "m" does not have');
  });
});

describe('batch sizes', () => {
  it('refuses a batch above max_batch_size with the fix', () => {
    expect(message(() => checkBatchSize(model, 16))).toBe(
      '-b 16: batch size is above max_batch_size 8 of model "m"; use -b 8 or less, or raise max_batch_size in its config.pbtxt');
    expect(message(() => checkBatchSize({ ...model, maxBatchSize: 0 }, 2))).toContain('does not batch (max_batch_size 0)');
    expect(() => checkBatchSize(model, 8)).not.toThrow();
  });
});

describe('request data', () => {
  const dims = { image: [3, 2], scale: [1] };

  it('builds zero tensors of batch × sample bytes with the batch dimension in front', () => {
    const [req] = buildRequests(model, 4, dims, { kind: 'zero' });
    expect(req!.map((t) => [t.name, t.shape, t.data.byteLength])).toEqual([['image', [4, 3, 2], 4 * 6 * 4], ['scale', [4, 1], 4 * 8]]);
    expect(req![0]!.data.every((b) => b === 0)).toBe(true);
  });

  it('builds finite random floats', () => {
    const [req] = buildRequests(model, 2, dims, { kind: 'random' });
    const floats = new Float32Array(req![0]!.data.buffer, req![0]!.data.byteOffset, 12);
    expect([...floats].every((f) => Number.isFinite(f) && f >= 0 && f < 1)).toBe(true);
  });

  it('reads a perf_analyzer-style JSON file, one request per entry, repeated over the batch', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gebe-perf-'));
    const file = path.join(dir, 'data.json');
    writeFileSync(file, JSON.stringify({ data: [{ image: [1, 2, 3, 4, 5, 6], scale: [7] }, { image: { content: [[0, 0, 0], [0, 0, 1]], shape: [3, 2] }, scale: [8] }] }));
    const reqs = buildRequests(model, 2, dims, { kind: 'file', path: file });
    expect(reqs).toHaveLength(2);
    expect([...new Float32Array(reqs[0]![0]!.data.buffer.slice(0))]).toEqual([1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6]);
    expect([...new BigInt64Array(reqs[1]![1]!.data.buffer.slice(0))]).toEqual([8n, 8n]);
  });

  it('names the entry and input of a file with wrong names or sizes', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gebe-perf-'));
    const wrongName = path.join(dir, 'a.json');
    writeFileSync(wrongName, JSON.stringify({ data: [{ image: [1, 2, 3, 4, 5, 6], scal: [1] }] }));
    expect(message(() => buildRequests(model, 1, dims, { kind: 'file', path: wrongName }))).toBe(
      `--input-data ${wrongName}: data[0] names input "scal", which model "m" does not have; its inputs are "image", "scale"`);
    const wrongSize = path.join(dir, 'b.json');
    writeFileSync(wrongSize, JSON.stringify({ data: [{ image: [1, 2, 3], scale: [1] }] }));
    expect(message(() => buildRequests(model, 1, dims, { kind: 'file', path: wrongSize }))).toContain(
      'data[0].image has 3 values but one sample of shape [3,2] needs 6');
    expect(message(() => buildRequests(model, 1, dims, { kind: 'file', path: path.join(dir, 'none.json') }))).toContain('file not found');
  });
});

describe('BYTES inputs (--string-length, --string-data)', () => {
  const text: ModelDescription = {
    name: 't', version: '1', maxBatchSize: 4,
    inputs: [{ name: 'TEXT', datatype: 'BYTES', shape: [-1, 3] }, { name: 'N', datatype: 'INT32', shape: [-1, 1] }],
    outputs: [{ name: 'OUT', datatype: 'BYTES', shape: [-1, 3] }],
  };
  const dims = { TEXT: [3], N: [1] };
  const strings = (req: ReturnType<typeof buildRequests>[number]) => splitBytesElements(req[0]!.data).map((e) => Buffer.from(e).toString());

  it("sends random letters and digits of perf_analyzer's 128 characters, or of --string-length, for every element of the batch", () => {
    const [byDefault] = buildRequests(text, 2, dims, { kind: 'random' });
    expect(strings(byDefault!).map((s) => s.length)).toEqual([128, 128, 128, 128, 128, 128]);
    const [short] = buildRequests(text, 2, dims, { kind: 'random', strings: { length: 5 } });
    expect(short![0]!.data.byteLength).toBe(2 * 3 * (4 + 5));
    expect(strings(short!).every((s) => /^[0-9A-Za-z]{5}$/.test(s))).toBe(true);
    expect(short![1]!.data.byteLength).toBe(2 * 4); // other inputs as before
  });

  it('sends empty strings for zero data, and the --string-data string as every element of zero or random data', () => {
    expect(strings(buildRequests(text, 1, dims, { kind: 'zero', strings: { length: 5 } })[0]!)).toEqual(['', '', '']);
    expect(strings(buildRequests(text, 2, dims, { kind: 'zero', strings: { length: 128, data: 'héllo' } })[0]!)).toEqual(Array(6).fill('héllo'));
    expect(strings(buildRequests(text, 1, dims, { kind: 'random', strings: { length: 5, data: 'x:y' } })[0]!)).toEqual(['x:y', 'x:y', 'x:y']);
  });

  it('refuses a BYTES tensor over 1 GiB a request, naming the input, the sizes and the flags to lower', () => {
    expect(message(() => buildRequests(text, 4, { TEXT: [300_000], N: [1] }, { kind: 'random', strings: { length: 1024 } }))).toBe(
      '--string-length: input "TEXT" would be 1233600000 bytes a request (300000 strings × batch 4 × 1028 bytes), ' +
      "over gebe perf's limit of 1073741824 bytes for one tensor; use a shorter string, a smaller --shape or a smaller -b");
    expect(message(() => buildRequests(text, 4, { TEXT: [300_000], N: [1] }, { kind: 'zero', strings: { length: 128, data: 'x'.repeat(1024) } }))).toMatch(/^--string-data: input "TEXT" would be/);
  });
});

describe('a data directory (perf_analyzer\'s --input-data <dir>)', () => {
  const withText: ModelDescription = {
    ...model,
    inputs: [...model.inputs, { name: 'prompt', datatype: 'BYTES', shape: [-1, 2] }],
  };
  const dims = { image: [3, 2], scale: [1], prompt: [2] };
  const sample = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gebe-perf-dir-'));
    writeFileSync(path.join(dir, 'image'), new Uint8Array(Float32Array.from([1, 2, 3, 4, 5, 6]).buffer));
    writeFileSync(path.join(dir, 'scale'), new Uint8Array(BigInt64Array.from([7n]).buffer));
    writeFileSync(path.join(dir, 'prompt'), 'hello\nwörld\n');
    return dir;
  };

  it('sends each input\'s file as one sample, repeated over the batch; BYTES one string a line', () => {
    const dir = sample();
    const [request, ...more] = buildRequests(withText, 2, dims, { kind: 'file', path: dir });
    expect(more).toEqual([]);
    const [image, scale, prompt] = request!;
    expect(image!.shape).toEqual([2, 3, 2]);
    expect([...new Float32Array(image!.data.slice().buffer)]).toEqual([1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6]);
    expect([...new BigInt64Array(scale!.data.slice().buffer)]).toEqual([7n, 7n]);
    expect(prompt!.shape).toEqual([2, 2]);
    expect(splitBytesElements(prompt!.data).map((b) => Buffer.from(b).toString('utf8'))).toEqual(['hello', 'wörld', 'hello', 'wörld']);
  });

  it('names the file that is missing, the wrong size or the wrong line count, with the fix', () => {
    const missing = sample();
    rmSync(path.join(missing, 'scale'));
    expect(message(() => buildRequests(withText, 1, dims, { kind: 'file', path: missing }))).toBe(
      `--input-data ${missing}: no file "scale"; a data directory holds one file per input, named as the input ("scale")`);
    const short = sample();
    writeFileSync(path.join(short, 'image'), new Uint8Array(20));
    expect(message(() => buildRequests(withText, 1, dims, { kind: 'file', path: short }))).toBe(
      `--input-data ${path.join(short, 'image')}: 20 bytes, but one sample of FP32 input "image" with shape [3,2] is 24 bytes (raw little-endian, row-major); fix the file or pass --shape image:...`);
    const lines = sample();
    writeFileSync(path.join(lines, 'prompt'), 'one line\n');
    expect(message(() => buildRequests(withText, 1, dims, { kind: 'file', path: lines }))).toContain(
      `--input-data ${path.join(lines, 'prompt')}: 1 line(s), but one sample of BYTES input "prompt" with shape [2] needs 2 strings, one a line`);
  });

  it('refuses an input name that would lead out of the directory', () => {
    const hostile: ModelDescription = { ...model, inputs: [{ name: '../secret', datatype: 'UINT8', shape: [-1, 1] }] };
    const dir = sample();
    expect(message(() => buildRequests(hostile, 1, { '../secret': [1] }, { kind: 'file', path: dir }))).toContain(
      'input "../secret" of model "m" cannot be a file name in the directory');
  });
});
