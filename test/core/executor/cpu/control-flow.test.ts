/**
 * If, Loop and Scan over static bodies, against ONNX Runtime at 1 and 2 threads: runtime
 * conditions and trip counts, bodies reading the enclosing graph's values, nested bodies, scan
 * axes and directions; an If on a constant condition is inlined at load; a body the engine
 * cannot run is refused at load with its nodes named.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { toHalf } from '../../../helpers/half.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { ortAgreement } from '../../../helpers/ort-agreement.js';

const agree = ortAgreement('gebe-control-flow-');
const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-control-flow-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const f32 = (name: string, dims: number[], seed: number): CpuTensor =>
  ({ name, datatype: 'FP32', dims, data: randomValues(dims.reduce((a, b) => a * b, 1), seed) });
const bool = (name: string, value: boolean): CpuTensor => ({ name, datatype: 'BOOL', dims: [], data: Uint8Array.from([value ? 1 : 0]) });
const i64 = (name: string, value: number): CpuTensor => ({ name, datatype: 'INT64', dims: [], data: BigInt64Array.from([BigInt(value)]) });

// A Loop body that hands its condition and one FLOAT[1] loop-carried value on unchanged.
const passThroughBody = (name: string) => new OnnxGraphBuilder(name, 16)
  .input('i', 'INT64', []).input('c', 'BOOL', []).input('s', 'FLOAT', [1])
  .node('Identity', ['c'], ['c_out']).node('Identity', ['s'], ['s_out'])
  .output('c_out', 'BOOL').output('s_out', 'FLOAT');

// then: x + w (w an outer initializer); else: a nested If on `deep` choosing Relu(x) or x * x.
function ifModel(opset = 16): Uint8Array {
  const inner = (op: string) => {
    const b = new OnnxGraphBuilder(`inner_${op}`, opset);
    if (op === 'Relu') b.node('Relu', ['x'], ['inner_out']);
    else b.node('Mul', ['x', 'x'], ['inner_out']);
    return b.output('inner_out', 'FLOAT');
  };
  const thenBranch = new OnnxGraphBuilder('then', opset).node('Add', ['x', 'w'], ['then_out']).output('then_out', 'FLOAT');
  const elseBranch = new OnnxGraphBuilder('else', opset)
    .node('If', ['deep'], ['else_out'], { then_branch: { graph: inner('Relu') }, else_branch: { graph: inner('Mul') } })
    .output('else_out', 'FLOAT');
  return new OnnxGraphBuilder('if', opset)
    .input('cond', 'BOOL', []).input('deep', 'BOOL', []).input('x', 'FLOAT', [2, 5])
    .initializer('w', 'FLOAT', [5], [1, 2, 3, 4, 5])
    .node('If', ['cond'], ['y'], { then_branch: { graph: thenBranch }, else_branch: { graph: elseBranch } })
    .node('Sigmoid', ['y'], ['z'])
    .output('z', 'FLOAT')
    .encode();
}

// Loop: M (input or constant), keep going while i < limit; carried sum += x * i; scan output x * i.
function loopModel(trip: 'input' | 'constant', opset = 16): Uint8Array {
  const body = new OnnxGraphBuilder('body', opset)
    .input('i', 'INT64', []).input('cond_in', 'BOOL', []).input('sum_in', 'FLOAT', [3])
    .node('Cast', ['i'], ['fi'], { to: 1 })
    .node('Mul', ['x', 'fi'], ['xi'])
    .node('Add', ['sum_in', 'xi'], ['sum_out'])
    .node('Add', ['i', 'one'], ['next'])
    .node('Less', ['next', 'limit'], ['cond_out'])
    .output('cond_out', 'BOOL').output('sum_out', 'FLOAT').output('xi', 'FLOAT');
  const b = new OnnxGraphBuilder('loop', opset).input('x', 'FLOAT', [3]).input('limit', 'INT64', []);
  if (trip === 'input') b.input('M', 'INT64', []);
  else b.initializer('M', 'INT64', [], [4]);
  return b.initializer('one', 'INT64', [], [1]).initializer('sum0', 'FLOAT', [3], [0.5, -1, 2]).initializer('go', 'BOOL', [], [1])
    .node('Loop', ['M', 'go', 'sum0'], ['sum', 'scan'], { body: { graph: body } })
    .output('sum', 'FLOAT').output('scan', 'FLOAT')
    .encode();
}

// Scan: running sum over axis 1 of x [2, 4, 3] (reversed), scan output stacked on axis 1 too.
function scanModel(): Uint8Array {
  const body = new OnnxGraphBuilder('body', 16)
    .input('acc_in', 'FLOAT', [2, 3]).input('x_t', 'FLOAT', [2, 3])
    .node('Add', ['acc_in', 'x_t'], ['acc_out'])
    .node('Mul', ['acc_out', 'k'], ['y_t'])
    .output('acc_out', 'FLOAT').output('y_t', 'FLOAT');
  return new OnnxGraphBuilder('scan', 16)
    .input('x', 'FLOAT', [2, 4, 3]).input('acc0', 'FLOAT', [2, 3])
    .initializer('k', 'FLOAT', [3], [1, -2, 0.5])
    .node('Scan', ['acc0', 'x'], ['acc', 'ys'], {
      body: { graph: body }, num_scan_inputs: 1, scan_input_axes: [1], scan_input_directions: [1], scan_output_axes: [1],
    })
    .output('acc', 'FLOAT').output('ys', 'FLOAT')
    .encode();
}

function load(model: Uint8Array, name: string): CpuSession {
  const file = path.join(dir, `${name}.onnx`);
  writeFileSync(file, model);
  return CpuSession.load(file);
}

describe.each([1, 2])('control flow vs ONNX Runtime (threads=%i)', (threads) => {
  it.each([[true, false], [false, true], [false, false]])('If with a runtime condition (cond=%s, nested cond=%s)', async (cond, deep) => {
    await agree(ifModel(), [bool('cond', cond), bool('deep', deep), f32('x', [2, 5], 1)], threads);
  });

  it.each([true, false])('If whose branches read an FP16 graph input (lowered to FP32 inside), cond=%s', async (cond) => {
    const thenBranch = new OnnxGraphBuilder('then', 16).node('Relu', ['h'], ['t']).output('t', 'FLOAT16');
    const elseBranch = new OnnxGraphBuilder('else', 16).node('Neg', ['h'], ['e']).output('e', 'FLOAT16');
    const model = new OnnxGraphBuilder('half_if', 16)
      .input('cond', 'BOOL', []).input('h', 'FLOAT16', [6])
      .node('If', ['cond'], ['y'], { then_branch: { graph: thenBranch }, else_branch: { graph: elseBranch } })
      .output('y', 'FLOAT16')
      .encode();
    await agree(model, [bool('cond', cond), { name: 'h', datatype: 'FP16', dims: [6], data: toHalf(randomValues(6, 12)) }], threads);
  });

  it.each([[6, 3], [2, 9], [0, 5]])('Loop with a runtime trip count M=%i (limit %i), carried value and scan output', async (m, limit) => {
    await agree(loopModel('input'), [f32('x', [3], 2), i64('limit', limit), i64('M', m)], threads);
  });

  it('Loop with a constant trip count, ended early by its condition', async () => {
    await agree(loopModel('constant'), [f32('x', [3], 3), i64('limit', 2)], threads);
  });

  it('Scan-8 (batched) with sequence_lens shorter than the sequence and a reversed input', async () => {
    const body = new OnnxGraphBuilder('body', 8)
      .input('acc_in', 'FLOAT', [3]).input('a_t', 'FLOAT', [3]).input('b_t', 'FLOAT', [3])
      .node('Add', ['acc_in', 'a_t'], ['sum']).node('Mul', ['sum', 'b_t'], ['acc_out']).node('Identity', ['acc_out'], ['y_t'])
      .output('acc_out', 'FLOAT').output('y_t', 'FLOAT');
    const model = new OnnxGraphBuilder('scan8', 8)
      .input('lens', 'INT64', [2]).input('acc0', 'FLOAT', [2, 3]).input('a', 'FLOAT', [2, 4, 3]).input('b', 'FLOAT', [2, 4, 3])
      .node('Scan', ['lens', 'acc0', 'a', 'b'], ['acc', 'ys'], { body: { graph: body }, num_scan_inputs: 2, directions: [0, 1] })
      .output('acc', 'FLOAT').output('ys', 'FLOAT')
      .encode();
    const lens: CpuTensor = { name: 'lens', datatype: 'INT64', dims: [2], data: BigInt64Array.from([4n, 2n]) };
    await agree(model, [lens, f32('acc0', [2, 3], 6), f32('a', [2, 4, 3], 7), f32('b', [2, 4, 3], 8)], threads);
  });

  it('Scan with a reversed input axis and a non-zero output axis', async () => {
    await agree(scanModel(), [f32('x', [2, 4, 3], 4), f32('acc0', [2, 3], 5)], threads);
  });
});

describe('control flow at load', () => {
  it('inlines an If whose condition is a constant into the branch it takes', async () => {
    const thenBranch = new OnnxGraphBuilder('then', 16).node('Relu', ['x'], ['t']).output('t', 'FLOAT');
    const elseBranch = new OnnxGraphBuilder('else', 16).node('Neg', ['x'], ['e']).output('e', 'FLOAT');
    const model = new OnnxGraphBuilder('const_if', 16)
      .input('x', 'FLOAT', [4]).initializer('c', 'BOOL', [], [0])
      .node('If', ['c'], ['y'], { then_branch: { graph: thenBranch }, else_branch: { graph: elseBranch } })
      .output('y', 'FLOAT')
      .encode();
    const session = load(model, 'const_if');
    try {
      expect(session.info().optimizedOperators).not.toHaveProperty('If');
      const [y] = await session.run([{ name: 'x', datatype: 'FP32', dims: [4], data: Float32Array.from([1, -2, 3, -4]) }]);
      expect(Array.from(y.data as Float32Array)).toEqual([-1, 2, -3, 4]);
    } finally {
      session.close();
    }
  });

  it('stops a Loop whose trip count and condition would keep it going, naming the bound', async () => {
    const body = passThroughBody('body');
    const model = new OnnxGraphBuilder('endless', 16)
      .input('M', 'INT64', []).input('s0', 'FLOAT', [1]).initializer('go', 'BOOL', [], [1])
      .node('Loop', ['M', 'go', 's0'], ['s'], { body: { graph: body } }, 'endless')
      .output('s', 'FLOAT')
      .encode();
    const session = load(model, 'endless');
    try {
      await expect(session.run([i64('M', 2 ** 40), { name: 's0', datatype: 'FP32', dims: [1], data: Float32Array.from([1]) }]))
        .rejects.toThrow("node 'endless' (Loop): ran 1048576 loop iterations in one run without stopping (nested loops count together); the engine bounds loops there");
    } finally {
      session.close();
    }
  });

  it('counts nested Loops together: two trip counts of 2^11 from the request stop at the 2^20 bound', async () => {
    const inner = passThroughBody('inner');
    const outer = new OnnxGraphBuilder('outer', 16)
      .input('i', 'INT64', []).input('c', 'BOOL', []).input('s', 'FLOAT', [1])
      .node('Loop', ['N', 'c', 's'], ['s_out'], { body: { graph: inner } }, 'inner')  // N from the enclosing graph
      .node('Identity', ['c'], ['c_out'])
      .output('c_out', 'BOOL').output('s_out', 'FLOAT');
    const model = new OnnxGraphBuilder('nested', 16)
      .input('M', 'INT64', []).input('N', 'INT64', []).input('s0', 'FLOAT', [1]).initializer('go', 'BOOL', [], [1])
      .node('Loop', ['M', 'go', 's0'], ['s'], { body: { graph: outer } }, 'outer')
      .output('s', 'FLOAT')
      .encode();
    const session = load(model, 'nested');
    try {
      const run = (m: number, n: number) => session.run([i64('M', m), i64('N', n), { name: 's0', datatype: 'FP32', dims: [1], data: Float32Array.of(5) }]);
      const [s] = await run(8, 8);
      expect(Array.from(s.data as Float32Array)).toEqual([5]);
      await expect(run(2 ** 11, 2 ** 11)).rejects.toThrow(/ran 1048576 loop iterations in one run without stopping \(nested loops count together\)/);
      // The budget is per run: the next request starts from zero.
      expect(Array.from((await run(8, 8))[0].data as Float32Array)).toEqual([5]);
    } finally {
      session.close();
    }
  });

  it('refuses a body the engine cannot run, naming its nodes and values', () => {
    const body = new OnnxGraphBuilder('body', 16)
      .input('i', 'INT64', []).input('c', 'BOOL', []).input('s', 'FLOAT', [1])
      .node('SequenceEmpty', [], ['seq'], {}, 'make_seq')
      .node('Identity', ['c'], ['c_out']).node('Identity', ['s'], ['s_out'])
      .output('c_out', 'BOOL').output('s_out', 'FLOAT');
    const model = new OnnxGraphBuilder('bad_loop', 16)
      .input('s0', 'FLOAT', [1]).initializer('M', 'INT64', [], [2])
      .node('Loop', ['M', '', 's0'], ['s'], { body: { graph: body } }, 'the_loop')
      .output('s', 'FLOAT')
      .encode();
    expect(() => load(model, 'bad_loop')).toThrow(/cannot run .*SequenceEmpty \(make_seq\)/);
  });
});
