/**
 * The sequence batcher (native/src/scheduler/sequence_*) on the cpu engine with a real ONNX
 * accumulator whose state is implicit: interleaved sequences on both strategies give what each
 * sequence gives alone; the control inputs carry the config's false/true values and the id;
 * initial_state; the idle timeout; Triton's errors; the backlog when slots run out; unload drains.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/core/config/parse.js';
import { loadModel, type ExecutorModel, type InferRequest, type InferResponse } from '../../../src/core/executor/index.js';
import { STATE_WIDTH, writeAccumulatorRepo, type AccumulatorRepoOptions } from '../../helpers/sequence-model.js';

let root: string;
const loaded: ExecutorModel[] = [];

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'gebe-sequence-'));
});

afterAll(async () => {
  await Promise.all(loaded.map((m) => m.unload()));
  rmSync(root, { recursive: true, force: true });
});

let counter = 0;
async function load(o: AccumulatorRepoOptions = {}): Promise<ExecutorModel> {
  const dir = writeAccumulatorRepo(root, { ...o, name: o.name ?? `acc_${counter++}` });
  const parsed = parseModelConfig(readFileSync(path.join(dir, 'config.pbtxt'), 'utf8'), 'config.pbtxt');
  expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const model = await loadModel(dir, '1', parsed.config!);
  loaded.push(model);
  return model;
}

function step(id: number | string, value: number, start: boolean, end: boolean): InferRequest {
  return {
    inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, STATE_WIDTH], data: new Uint8Array(Float32Array.from({ length: STATE_WIDTH }, (_, i) => value + i).buffer) }],
    sequenceId: id,
    sequenceStart: start,
    sequenceEnd: end,
  };
}

function floats(r: InferResponse, name: string): number[] {
  const t = r.outputs.find((o) => o.name === name)!;
  return Array.from(new Float32Array(t.data.slice().buffer));
}

/** Sequences as lists of input values, one per step. */
const SEQUENCES: Record<number, number[]> = { 11: [1, 2, 3, 4, 5], 12: [10, -1], 13: [0.5, 0.25, 0.125, 4], 14: [7] };

/** Runs every sequence alone, one step after another. */
async function alone(model: ExecutorModel): Promise<Map<number, number[][]>> {
  const out = new Map<number, number[][]>();
  for (const [id, values] of Object.entries(SEQUENCES)) {
    const results: number[][] = [];
    for (const [k, v] of values.entries()) {
      results.push(floats(await model.infer(step(Number(id), v, k === 0, k === values.length - 1)), 'OUTPUT'));
    }
    out.set(Number(id), results);
  }
  return out;
}

/** Sends every sequence's steps round-robin without waiting, so they interleave and batch. */
async function interleaved(model: ExecutorModel): Promise<Map<number, number[][]>> {
  const pending = new Map<number, Array<Promise<InferResponse>>>();
  const longest = Math.max(...Object.values(SEQUENCES).map((v) => v.length));
  for (let k = 0; k < longest; k += 1) {
    for (const [id, values] of Object.entries(SEQUENCES)) {
      if (k >= values.length) continue;
      const list = pending.get(Number(id)) ?? [];
      list.push(model.infer(step(Number(id), values[k]!, k === 0, k === values.length - 1)));
      pending.set(Number(id), list);
    }
  }
  const out = new Map<number, number[][]>();
  for (const [id, list] of pending) out.set(id, (await Promise.all(list)).map((r) => floats(r, 'OUTPUT')));
  return out;
}

function expectedSums(values: number[], initial = new Array(STATE_WIDTH).fill(0)): number[][] {
  const state = [...initial];
  return values.map((v) => state.map((s, i) => (state[i] = s + v + i)));
}

describe('sequence batcher', () => {
  for (const strategy of ['direct', 'oldest'] as const) {
    for (const instances of [1, 2]) {
      it(`${strategy} with ${instances} instance(s): interleaved sequences equal each sequence run alone`, async () => {
        const model = await load({ strategy, instances });
        const together = await interleaved(model);
        const solo = await alone(model);
        for (const [id, values] of Object.entries(SEQUENCES)) {
          expect(together.get(Number(id))).toEqual(solo.get(Number(id)));
          expect(solo.get(Number(id))).toEqual(expectedSums(values));
        }
        const stats = model.stats();
        expect(stats.inference_count).toBe(2 * Object.values(SEQUENCES).flat().length);
        // Interleaved steps of different sequences ran in shared batches.
        expect(stats.execution_count).toBeLessThan(stats.inference_count);
      });
    }
  }

  it('hides the control and state tensors from the model metadata', async () => {
    const model = await load();
    expect(model.inputs.map((t) => t.name)).toEqual(['INPUT']);
    expect(model.outputs.map((t) => t.name)).toEqual(['OUTPUT', 'FLAGS', 'CORRID_OUT']);
    // The native routes take its requests too (they read the sequence parameters).
    expect(model.nativeModel?.()).toBeDefined();
  });

  it('checks requests against the client inputs only, and keeps a misaligned input it copied', async () => {
    const model = await load({ name: 'contract' });
    // Control and state tensors are the batcher's: Normalize names them as unknown to clients.
    for (const name of ['START', 'STATE_IN']) {
      const extra = step(3, 1, true, false);
      extra.inputs.push({ name, datatype: 'FP32', shape: [1, 1], data: new Uint8Array(4) });
      await expect(model.infer(extra)).rejects.toThrow(`unexpected inference input '${name}' for model 'contract'; its inputs are 'INPUT'`);
    }
    // An FP32 input at an odd byte offset is copied once by Normalize; the batcher's own inputs
    // are added beside that copy, so the step still reads the client's values.
    const odd = new Uint8Array(4 * STATE_WIDTH + 1);
    odd.set(new Uint8Array(Float32Array.from({ length: STATE_WIDTH }, (_, i) => 2 + i).buffer), 1);
    const misaligned = step(3, 0, true, true);
    misaligned.inputs[0] = { ...misaligned.inputs[0]!, data: odd.subarray(1) };
    expect(floats(await model.infer(misaligned), 'OUTPUT')).toEqual([2, 3, 4, 5]);
  });

  for (const flag of ['fp32', 'int32', 'bool'] as const) {
    it(`fills ${flag} START/END/READY controls and the CORRID`, async () => {
      const model = await load({ flag, corrid: flag === 'int32' ? 'TYPE_INT32' : 'TYPE_UINT64' });
      const a = await model.infer(step(42, 1, true, false));
      const b = await model.infer(step(42, 1, false, false));
      const c = await model.infer(step(42, 1, false, true));
      const d = await model.infer(step(43, 1, true, true));
      expect([a, b, c, d].map((r) => floats(r, 'FLAGS')[0])).toEqual([101, 1, 11, 111]);
      expect([a, b, c, d].map((r) => floats(r, 'CORRID_OUT')[0])).toEqual([42, 42, 42, 43]);
    });
  }

  it('takes a uint64 id beyond 2^53 as a bigint', async () => {
    const model = await load();
    const id = 2n ** 60n + 3n;
    await model.infer(step(id as unknown as number, 1, true, false));
    await expect(model.infer(step((id + 1n) as unknown as number, 1, false, false))).rejects.toThrow(`sequence ${id + 1n} to model`);
    await model.infer(step(id as unknown as number, 1, false, true));
  });

  it('starts a sequence from initial_state data_file', async () => {
    const model = await load({ initial: [100, 200, 300, 400] });
    const r = await model.infer(step(1, 1, true, false));
    expect(floats(r, 'OUTPUT')).toEqual(expectedSums([1], [100, 200, 300, 400])[0]);
    // A START on a live sequence begins it again from the initial state.
    const again = await model.infer(step(1, 5, true, true));
    expect(floats(again, 'OUTPUT')).toEqual(expectedSums([5], [100, 200, 300, 400])[0]);
  });

  it('releases an idle sequence after max_sequence_idle_microseconds', async () => {
    const model = await load({ idleUs: 200_000 });
    await model.infer(step(5, 1, true, false));
    await new Promise((resolve) => setTimeout(resolve, 800));
    await expect(model.infer(step(5, 1, false, false))).rejects.toThrow(
      /^inference request for sequence 5 to model 'acc_\d+' must specify the START flag on the first request of the sequence$/,
    );
    // A sequence that keeps sending within the idle time stays.
    await model.infer(step(6, 1, true, false));
    const r = await model.infer(step(6, 1, false, true));
    expect(floats(r, 'OUTPUT')[0]).toBe(2);
  });

  it("answers Triton's errors", async () => {
    const model = await load({ name: 'errs' });
    await expect(model.infer({ ...step(1, 1, true, false), sequenceId: undefined })).rejects.toThrow(
      "inference request to model 'errs' must specify a non-zero or non-empty correlation ID",
    );
    await expect(model.infer(step(0, 1, true, false))).rejects.toThrow('non-zero or non-empty correlation ID');
    await expect(model.infer(step(77, 1, false, false))).rejects.toThrow(
      "inference request for sequence 77 to model 'errs' must specify the START flag on the first request of the sequence",
    );
    const two = step(78, 1, true, false);
    two.inputs[0] = { ...two.inputs[0]!, shape: [2, STATE_WIDTH], data: new Uint8Array(8 * STATE_WIDTH) };
    await expect(model.infer(two)).rejects.toThrow("inference request to model 'errs' must specify batch-size 1 due to requirements of sequence batcher");
    await expect(model.infer(step('text-id', 1, true, true))).rejects.toThrow("sequence id 'text-id' is a string, but the model's CONTROL_SEQUENCE_CORRID input is UINT64");
    // After END the id is free: the next request must start again.
    await model.infer(step(79, 1, true, true));
    await expect(model.infer(step(79, 1, false, false))).rejects.toThrow('must specify the START flag');
    const errors = await Promise.allSettled([model.infer(step(80, 1, true, false))]);
    expect(errors[0]!.status).toBe('fulfilled');
  });

  it('bounds the requests one sequence may hold, and counts refusals as failures', async () => {
    const model = await load({ name: 'bounded' });
    const before = model.stats().inference_stats.fail.count;
    // Sent at once: one runs and 1024 may wait; past that they are refused at once with 503 (how
    // many depends on how fast the instance drains the sequence meanwhile).
    const sent = 6000;
    const answers = Array.from({ length: sent }, (_, k) => model.infer(step(21, 1, k === 0, false)).then(() => 'ok', (e: Error & { status: number }) => `${e.status} ${e.message}`));
    const settled = await Promise.all(answers);
    const ran = settled.filter((a) => a === 'ok').length;
    const refused = settled.filter((a) => a !== 'ok');
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused)).toEqual(new Set(["503 sequence 21 of model 'bounded' already has 1024 requests waiting; wait for answers before sending more"]));
    await expect(model.infer(step(22, 1, false, false))).rejects.toThrow('must specify the START flag');
    expect(model.stats().inference_stats.fail.count - before).toBe(refused.length + 1);
    // The state saw exactly the steps that ran.
    const last = await model.infer(step(21, 1, false, true));
    expect(floats(last, 'OUTPUT')[0]).toBe(ran + 1);
  });

  it('takes string sequence ids when the model has no numeric CORRID', async () => {
    const dir = writeAccumulatorRepo(root, { name: 'strid' });
    const text = readFileSync(path.join(dir, 'config.pbtxt'), 'utf8').replace(/,\s*\{ name: "CORRID"[^\n]*\n/, '\n');
    writeFileSync(path.join(dir, 'config.pbtxt'), text);
    const parsed = parseModelConfig(text, 'config.pbtxt');
    // Without the control, CORRID is a client input; the batcher fills only START/END/READY.
    const model = await loadModel(dir, '1', parsed.config!);
    loaded.push(model);
    const corrid = (v: bigint) => ({ name: 'CORRID', datatype: 'UINT64' as const, shape: [1, 1], data: new Uint8Array(BigUint64Array.of(v).buffer) });
    const a = step('alpha', 1, true, false);
    const b = step('beta', 10, true, false);
    const ra = model.infer({ ...a, inputs: [...a.inputs, corrid(1n)] });
    const rb = model.infer({ ...b, inputs: [...b.inputs, corrid(2n)] });
    const a2 = step('alpha', 1, false, true);
    const ra2 = await model.infer({ ...a2, inputs: [...a2.inputs, corrid(1n)] });
    expect(floats(await ra, 'OUTPUT')[0]).toBe(1);
    expect(floats(await rb, 'OUTPUT')[0]).toBe(10);
    expect(floats(ra2, 'OUTPUT')[0]).toBe(2);
  });

  it('backlogs sequences beyond the candidate slots and runs them when slots free', async () => {
    const model = await load({ strategy: 'oldest', candidates: 1, maxBatchSize: 2 });
    const together = await interleaved(model);
    for (const [id, values] of Object.entries(SEQUENCES)) expect(together.get(Number(id))).toEqual(expectedSums(values));
  });

  it('runs what it accepted before unloading', async () => {
    const dir = writeAccumulatorRepo(root, { name: 'drain' });
    const parsed = parseModelConfig(readFileSync(path.join(dir, 'config.pbtxt'), 'utf8'), 'config.pbtxt');
    const model = await loadModel(dir, '1', parsed.config!);
    const answers = [1, 2, 3].map((v, k) => model.infer(step(9, v, k === 0, k === 2)));
    const unloaded = model.unload();
    expect((await Promise.all(answers)).map((r) => floats(r, 'OUTPUT')[0])).toEqual([1, 3, 6]);
    await unloaded;
  });
});
