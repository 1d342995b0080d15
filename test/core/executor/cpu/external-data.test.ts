/**
 * Initializers stored as ONNX external data: read from files next to the model, never from
 * outside its directory.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, onnxRoot } from '../../../helpers/onnx-builder.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-external-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** y = x + w where w (4 floats) lives in an external file at `location`. */
function modelWithExternalWeights(location: string, offset = 0): Uint8Array {
  const model = new OnnxGraphBuilder('external', 13)
    .input('x', 'FLOAT', [4])
    .initializer('w', 'FLOAT', [4], [0, 0, 0, 0])
    .node('Add', ['x', 'w'], ['y'], {}, 'add')
    .output('y', 'FLOAT', [4])
    .toModelObject() as { graph: { initializer: Array<Record<string, unknown>> } };
  const w = model.graph.initializer[0];
  delete w.rawData;
  w.dataLocation = 1;
  w.externalData = [
    { key: 'location', value: location },
    { key: 'offset', value: String(offset) },
    { key: 'length', value: '16' },
  ];
  const ModelProto = onnxRoot().lookupType('onnx.ModelProto');
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}

describe('external tensor data', () => {
  it('reads weights from a file in the model directory, at the given offset', async () => {
    mkdirSync(path.join(dir, 'ok', 'weights'), { recursive: true });
    const bytes = new Float32Array([99, 1, 2, 3, 4]);
    writeFileSync(path.join(dir, 'ok', 'weights', 'w.bin'), new Uint8Array(bytes.buffer));
    writeFileSync(path.join(dir, 'ok', 'model.onnx'), modelWithExternalWeights('weights/w.bin', 4));
    const session = CpuSession.load(path.join(dir, 'ok', 'model.onnx'));
    const [y] = await session.run([{ name: 'x', datatype: 'FP32', dims: [4], data: new Float32Array([10, 20, 30, 40]) }]);
    expect(Array.from(y.data as Float32Array)).toEqual([11, 22, 33, 44]);
    session.close();
  });

  it("refuses locations outside the model directory ('..' or absolute)", () => {
    mkdirSync(path.join(dir, 'bad'), { recursive: true });
    for (const location of ['../w.bin', 'weights/../../w.bin', '/etc/passwd']) {
      const file = path.join(dir, 'bad', 'model.onnx');
      writeFileSync(file, modelWithExternalWeights(location));
      expect(() => CpuSession.load(file)).toThrow(
        `initializer tensor 'w' has external data location '${location}'; only paths inside the model directory are allowed`,
      );
    }
  });

  it('names a missing or short external file', () => {
    mkdirSync(path.join(dir, 'short'), { recursive: true });
    writeFileSync(path.join(dir, 'short', 'model.onnx'), modelWithExternalWeights('w.bin'));
    expect(() => CpuSession.load(path.join(dir, 'short', 'model.onnx'))).toThrow("cannot open external data file 'w.bin'");
    writeFileSync(path.join(dir, 'short', 'w.bin'), new Uint8Array(8));
    expect(() => CpuSession.load(path.join(dir, 'short', 'model.onnx'))).toThrow("external data file 'w.bin' has 8 bytes, too short for offset 0 + length 16");
  });
});
