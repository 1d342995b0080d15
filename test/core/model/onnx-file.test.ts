import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OnnxGraphBuilder, randomValues } from '../../helpers/onnx-builder.js';
import { FileWireReader, inspectOnnxFile } from '../../../src/core/model/onnx-file.js';
import { inspectModelProto, inspectOnnx, OnnxParseError } from '../../../src/core/model/onnx.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-onnx-file-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function save(name: string, bytes: Uint8Array): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return file;
}

describe('inspectOnnxFile', () => {
  it('reads the same as the in-memory walk, including 10-byte varints and fields across window edges', () => {
    const b = new OnnxGraphBuilder('wide', 13).input('x', 'FLOAT', ['batch', 8]);
    let prev = 'x';
    // 3,000 nodes with long names: their fields straddle the 64 KB window many times.
    for (let i = 0; i < 3000; i++) {
      const next = `activation_with_a_rather_long_descriptive_name_${i}`;
      b.node(i % 2 ? 'Relu' : 'Sigmoid', [prev], [next], undefined, `node_with_a_long_name_${i}`);
      prev = next;
    }
    const bytes = b.node('Identity', [prev], ['y']).output('y', 'FLOAT', [-1, 8]).encode();
    expect(bytes.length).toBeGreaterThan(4 * 65536);
    const file = save('wide.onnx', bytes);
    const fromFile = inspectOnnxFile(file);
    expect(fromFile).toEqual(inspectOnnx(bytes));
    expect(fromFile.outputs[0]!.dims).toEqual([-1, 8]);
    expect(fromFile.nodeCount).toBe(3001);
  });

  it('skips weights without reading them', () => {
    const weights = 4 * 1024 * 1024; // 16 MB of FLOAT
    const bytes = new OnnxGraphBuilder('heavy', 13)
      .input('x', 'FLOAT', ['batch', 1024])
      .initializer('w', 'FLOAT', [1024, 4096], randomValues(weights, 5))
      .node('MatMul', ['x', 'w'], ['y'])
      .output('y', 'FLOAT', ['batch', 4096])
      .encode();
    const file = save('heavy.onnx', bytes);
    const fd = fs.openSync(file, 'r');
    try {
      const reader = new FileWireReader(fd, fs.fstatSync(fd).size);
      const info = inspectModelProto(reader);
      expect(info.inputs.map((i) => i.name)).toEqual(['x']);
      expect(info.operators).toEqual(['MatMul']);
      expect(reader.bytesRead).toBeLessThan(256 * 1024);
    } finally {
      fs.closeSync(fd);
    }
  });

  it('reports truncated and non-ONNX files as OnnxParseError', () => {
    const bytes = new OnnxGraphBuilder().input('x', 'FLOAT', [1]).node('Relu', ['x'], ['y']).output('y', 'FLOAT', [1]).encode();
    expect(() => inspectOnnxFile(save('cut.onnx', bytes.subarray(0, bytes.length - 3)))).toThrow(OnnxParseError);
    expect(() => inspectOnnxFile(save('lfs.onnx', new TextEncoder().encode('version https://git-lfs.github.com/spec/v1\n')))).toThrow(OnnxParseError);
    expect(() => inspectOnnxFile(save('empty.onnx', new Uint8Array()))).toThrow(/no graph/);
    expect(() => inspectOnnxFile(dir)).toThrow(/not a regular file/);
  });
});
