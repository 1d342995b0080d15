/**
 * gebe compare end to end: the mnist template in process against a real gebe server (HTTP and
 * gRPC, exact), against outputs ONNX Runtime stored (within tolerance), a perturbed model file
 * (caught, the right output named), and a .om run by the ascend engine over the fake AscendCL.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompareReport } from '../../../src/core/compare/report.js';
import { OnnxGraphBuilder } from '../../helpers/onnx-builder.js';
import type { GebeServer } from '../../../src/core/server/server.js';
import { TEMPLATES_DIR } from '../../../src/commands/init/templates.js';
import { runGebe } from '../../helpers/gebe-cli.js';
import { serveModelDir } from '../../helpers/model-server.js';
import { buildFakeAcl, repoRoot, writeFakeOm } from '../../core/executor/fake-acl.js';

let tmp: string;
const gebe = (args: string[]) => runGebe(args, { cwd: tmp });
const json = (out: string) => JSON.parse(out) as CompareReport;
const ortFixture = path.join(repoRoot, 'fixtures/compare/mnist-ort');

/** x [4] → y1 = 2x, y2 = x + bias; version 2 has a bias that is off by `delta` in one element. */
function twoOutputs(delta: number): Uint8Array {
  return new OnnxGraphBuilder('two', 13)
    .input('x', 'FLOAT', ['batch', 4])
    .initializer('two', 'FLOAT', [1], [2])
    .initializer('bias', 'FLOAT', [4], [1, 1, 1 + delta, 1])
    .node('Mul', ['x', 'two'], ['y1'])
    .node('Add', ['x', 'bias'], ['y2'])
    .output('y1', 'FLOAT', ['batch', 4])
    .output('y2', 'FLOAT', ['batch', 4])
    .encode();
}

const CONFIG = (name: string, outputs: string[]) => `name: "${name}"
backend: "ge"
max_batch_size: 8
input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ ${outputs.map((o) => `{ name: "${o}" data_type: TYPE_FP32 dims: [ 4 ] }`).join(', ')} ]
`;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-compare-'));
  expect((await gebe(['init', 'mnist', '--yes'])).code).toBe(0);
  const two = path.join(tmp, 'model_repository', 'two');
  for (const [version, delta] of [['1', 0], ['2', 0.01]] as const) {
    fs.mkdirSync(path.join(two, version), { recursive: true });
    fs.writeFileSync(path.join(two, version, 'model.onnx'), twoOutputs(delta));
  }
  fs.writeFileSync(path.join(two, 'config.pbtxt'), CONFIG('two', ['y1', 'y2']));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('gebe compare against a gebe server running the same model', () => {
  let served: { server: GebeServer; http: string; grpc: string };
  beforeAll(async () => {
    served = await serveModelDir(path.join(tmp, 'model_repository', 'mnist'));
  });
  afterAll(() => served.server.stop(2000));

  for (const scheme of ['http', 'grpc'] as const) {
    it(`matches exactly over ${scheme}`, async () => {
      const samples = path.join(TEMPLATES_DIR, 'mnist', 'samples');
      fs.mkdirSync(path.join(tmp, 'pngs'), { recursive: true });
      for (const d of [0, 3, 7]) fs.copyFileSync(path.join(samples, `digit-${d}.png`), path.join(tmp, 'pngs', `digit-${d}.png`));
      const r = await gebe(['compare', '-m', 'mnist', '--against', `${scheme}://${scheme === 'http' ? served.http : served.grpc}`, '--input-data', 'pngs', '--atol', '0', '--rtol', '0', '--json']);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      const report = json(r.out);
      expect(report.samples).toEqual(['digit-0', 'digit-3', 'digit-7']);
      expect(report.outputs[0]!.metrics).toMatchObject({ elements: 30, maxAbsError: 0, cosineSimilarity: 1, outsideShare: 0 });
    });
  }
});

describe('gebe compare against stored outputs', () => {
  it('agrees with ONNX Runtime within tolerance (.npy and raw .bin references)', async () => {
    const r = await gebe(['compare', '-m', 'mnist', '--against', path.join(ortFixture, 'ort-output'), '--input-data', path.join(ortFixture, 'input'), '--json']);
    expect(r.code).toBe(0);
    const m = json(r.out).outputs[0]!.metrics!;
    expect(m.elements).toBe(30);
    expect(m.maxAbsError).toBeLessThan(1e-4);
    expect(m.cosineSimilarity).toBeGreaterThan(0.999999);
  });

  it('fails when the tolerance is tighter than the two runtimes agree, and prints the worst elements', async () => {
    const r = await gebe(['compare', '-m', 'mnist', '--against', path.join(ortFixture, 'ort-output'), '--input-data', path.join(ortFixture, 'input'), '--atol', '0', '--rtol', '0', '--worst', '2']);
    // gebe's cpu engine and ONNX Runtime differ in the last bits (about 1e-6 here): exact comparison fails.
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/logits .*FAIL/);
    expect(r.out).toMatch(/worst elements:\n {4}sample-\d \[0, \d\]  got /);
  });

  it('round-trips its own --dump as inputs and reference, and writes the HTML histogram', async () => {
    const first = await gebe(['compare', '-m', 'mnist', '--against', '1/model.onnx', '--input-data', path.join(ortFixture, 'input'), '--dump', 'dump', '--report', 'compare.html']);
    expect(first.code).toBe(0);
    expect(fs.readdirSync(path.join(tmp, 'dump', 'model')).sort()).toEqual(['sample-0_0.npy', 'sample-1_0.npy', 'sample-2_0.npy']);
    const again = await gebe(['compare', '-m', 'mnist', '--against', 'dump/model', '--input-data', 'dump/input', '--atol', '0', '--rtol', '0']);
    expect(again.code).toBe(0);
    const html = fs.readFileSync(path.join(tmp, 'compare.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(html).toContain('logits: absolute errors over 30 elements');
  });

  it('names the missing reference file (exit 2)', async () => {
    fs.mkdirSync(path.join(tmp, 'partial'), { recursive: true });
    fs.copyFileSync(path.join(ortFixture, 'ort-output', 'sample-0_0.npy'), path.join(tmp, 'partial', 'sample-0_0.npy'));
    const r = await gebe(['compare', '-m', 'mnist', '--against', 'partial', '--input-data', path.join(ortFixture, 'input')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`no stored output for sample "sample-1", output 0 ("logits"): neither ${path.join(tmp, 'partial', 'sample-1_0.npy')}`);
  });
});

describe('gebe compare against a perturbed model file', () => {
  it('passes the same file and catches the perturbed output, naming it', async () => {
    expect((await gebe(['compare', '-m', 'two', '--against', '1/model.onnx', '--model-version', '1'])).code).toBe(0);
    const r = await gebe(['compare', '-m', 'two', '--model-version', '1', '--against', '2/model.onnx', '--input-data', 'random', '--json']);
    expect(r.code).toBe(1);
    const report = json(r.out);
    expect(report.outputs.map((o) => [o.name, o.pass])).toEqual([['y1', true], ['y2', false]]);
    const y2 = report.outputs[1]!;
    expect(y2.metrics!.outsideCount).toBe(1);
    expect(y2.metrics!.worst[0]).toMatchObject({ coords: [0, 2] });
    expect(y2.metrics!.maxAbsError).toBeCloseTo(0.01, 6);
    const text = await gebe(['compare', '-m', 'two', '--model-version', '1', '--against', '2/model.onnx']);
    expect(text.out).toContain('1 of 2 outputs outside the thresholds: y2');
    // A looser tolerance lets it through.
    expect((await gebe(['compare', '-m', 'two', '--model-version', '1', '--against', '2/model.onnx', '--atol', '0.02'])).code).toBe(0);
  });

  it('refuses targets it cannot read, with the fix (exit 2)', async () => {
    const noAgainst = await gebe(['compare', '-m', 'two']);
    expect(noAgainst.code).toBe(2);
    expect(noAgainst.err).toContain('--against is required');
    const outside = await gebe(['compare', '-m', 'two', '--against', '../elsewhere/model.onnx']);
    expect(outside.code).toBe(2);
    expect(outside.err).toContain('a model file must sit in a version directory of the model');
    const unknown = await gebe(['compare', '-m', 'two', '--against', 'nothing-here']);
    expect(unknown.err).toContain('--against nothing-here: not an http:// or grpc:// URL');
    const badData = await gebe(['compare', '-m', 'two', '--against', '1/model.onnx', '--input-data', path.join(ortFixture, 'input', 'image')]);
    expect(badData.code).toBe(2);
    expect(badData.err).toContain('sample-0.npy has shape [1, 1, 28, 28], which does not fit input "x" [-1, 4]');
  });
});

describe('gebe compare of an .onnx with its .om (ascend engine, fake AscendCL)', () => {
  beforeAll(() => {
    process.env.ASCEND_HOME_PATH = buildFakeAcl();
    const repo = path.join(tmp, 'model_repository');
    // The fake .om computes y = scale · x; the ONNX beside it computes 2x.
    writeFakeOm(repo, 'double', { input: 'x', output: 'y', rowDims: [4], gears: [1, 2, 4, 8], scale: 2 });
    writeFakeOm(repo, 'double', { input: 'x', output: 'y', rowDims: [4], gears: [1, 2, 4, 8], scale: 2.5 }, '2');
    fs.writeFileSync(path.join(repo, 'double', '1', 'model.onnx'), new OnnxGraphBuilder('double', 13)
      .input('x', 'FLOAT', ['batch', 4]).initializer('two', 'FLOAT', [1], [2]).node('Mul', ['x', 'two'], ['y']).output('y', 'FLOAT', ['batch', 4]).encode());
    fs.writeFileSync(path.join(repo, 'double', 'config.pbtxt'), CONFIG('double', ['y']));
  });
  afterAll(() => {
    delete process.env.ASCEND_HOME_PATH;
  });

  it('runs the .onnx on the cpu engine and the .om on the ascend engine and finds them equal', async () => {
    const r = await gebe(['compare', '-m', 'double', '--model-version', '1', '--against', '1/model.om', '--atol', '0', '--rtol', '0']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('against in process, ascend engine (1/model.om)');
  });

  it('catches an .om that computes something else', async () => {
    const r = await gebe(['compare', '-m', 'double', '--model-version', '1', '--against', '2/model.om', '--json']);
    expect(r.code).toBe(1);
    expect(json(r.out).outputs[0]).toMatchObject({ name: 'y', pass: false });
  });
});
