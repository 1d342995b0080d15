/**
 * Token-by-token decoding with the key/value cache kept by the server: an attention layer written
 * with opset 24's TensorScatter (the cache update) and Attention (nonpad_kv_seqlen, causal), its
 * caches and position as Triton's implicit state (sequence_batching state), served by `gebe
 * serve` over HTTP. Each step sends one token's embedding; the answers must equal the same layer
 * run over the whole sequence at once (causal Attention, no cache). Two sequences overlap, three
 * steps apart, so the oldest strategy batches steps at different positions together.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GebeServer } from '../../../../src/core/server/server.js';
import { CpuSession } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { serveModelDir } from '../../../helpers/model-server.js';
import { postJson } from '../helpers/http-client.js';

const D = 8, HEADS = 2, HEAD = 4, MAX = 16, STEPS = 7;
const weights = { q: randomValues(D * D, 1, 0.5), k: randomValues(D * D, 2, 0.5), v: randomValues(D * D, 3, 0.5) };

/** q, k and v of x [b, t, D] as [b, HEADS, t, HEAD]. */
function projections(g: OnnxGraphBuilder, x: string): void {
  g.initializer('heads', 'INT64', [4], [0, 0, HEADS, HEAD]);
  for (const p of ['q', 'k', 'v'] as const) {
    g.initializer(`W${p}`, 'FLOAT', [D, D], weights[p])
      .node('MatMul', [x, `W${p}`], [`${p}_flat`]).node('Reshape', [`${p}_flat`, 'heads'], [`${p}_split`])
      .node('Transpose', [`${p}_split`], [p], { perm: [0, 2, 1, 3] });
  }
}

/** One decoding step: the token's embedding X [b, 1, D]; K_IN/V_IN [b, HEADS, MAX, HEAD] and POS_IN [b, 1] are the state. */
function stepModel(): Uint8Array {
  const g = new OnnxGraphBuilder('decoder', 24)
    .input('X', 'FLOAT', ['batch', 1, D]).input('K_IN', 'FLOAT', ['batch', HEADS, MAX, HEAD])
    .input('V_IN', 'FLOAT', ['batch', HEADS, MAX, HEAD]).input('POS_IN', 'INT64', ['batch', 1])
    .initializer('flat', 'INT64', [1], [-1]).initializer('one', 'INT64', [], [1]);
  projections(g, 'X');
  g.node('Reshape', ['POS_IN', 'flat'], ['pos'])
    .node('TensorScatter', ['K_IN', 'k', 'pos'], ['K_OUT']).node('TensorScatter', ['V_IN', 'v', 'pos'], ['V_OUT'])
    .node('Add', ['pos', 'one'], ['valid']).node('Add', ['POS_IN', 'one'], ['POS_OUT'])
    .node('Attention', ['q', 'K_OUT', 'V_OUT', '', '', '', 'valid'], ['Y'], { is_causal: 1 })
    .output('Y', 'FLOAT', ['batch', HEADS, 1, HEAD]).output('K_OUT', 'FLOAT').output('V_OUT', 'FLOAT').output('POS_OUT', 'INT64');
  return g.encode();
}

/** The same layer over a whole sequence X [1, t, D] at once: causal Attention, no cache. */
function wholeModel(): Uint8Array {
  const g = new OnnxGraphBuilder('whole', 24).input('X', 'FLOAT', [1, 'tokens', D]);
  projections(g, 'X');
  g.node('Attention', ['q', 'k', 'v'], ['Y'], { is_causal: 1 }).output('Y', 'FLOAT', [1, HEADS, 'tokens', HEAD]);
  return g.encode();
}

const state = (input: string, output: string, type: string, dims: number[]) =>
  `{ input_name: "${input}" output_name: "${output}" data_type: ${type} dims: [ ${dims.join(', ')} ]
     initial_state { data_type: ${type} dims: [ ${dims.join(', ')} ] zero_data: true name: "zeros" } }`;
const CONFIG = `name: "decoder"
backend: "onnxruntime"
max_batch_size: 2
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1, ${D} ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ ${HEADS}, 1, ${HEAD} ] } ]
sequence_batching {
  max_sequence_idle_microseconds: 10000000
  oldest { max_candidate_sequences: 4 preferred_batch_size: [ 2 ] max_queue_delay_microseconds: 20000 }
  state [
    ${state('K_IN', 'K_OUT', 'TYPE_FP32', [HEADS, MAX, HEAD])},
    ${state('V_IN', 'V_OUT', 'TYPE_FP32', [HEADS, MAX, HEAD])},
    ${state('POS_IN', 'POS_OUT', 'TYPE_INT64', [1])}
  ]
}
`;

let tmp: string;
let server: GebeServer;
let base = '';

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'gebe-kv-cache-'));
  const modelDir = path.join(tmp, 'decoder');
  mkdirSync(path.join(modelDir, '1'), { recursive: true });
  writeFileSync(path.join(modelDir, '1', 'model.onnx'), stepModel());
  writeFileSync(path.join(modelDir, 'config.pbtxt'), CONFIG);
  writeFileSync(path.join(tmp, 'whole.onnx'), wholeModel());
  let http: string;
  ({ server, http } = await serveModelDir(modelDir));
  base = `http://${http}`;
});
afterAll(async () => {
  await server?.stop(5000);
  rmSync(tmp, { recursive: true, force: true });
});

/** Sequence `id`'s step t: its token's embedding. */
const token = (id: number, t: number) => Array.from(randomValues(D, 100 * id + t, 1));

async function step(id: number, t: number): Promise<number[]> {
  const res = await postJson(`${base}/v2/models/decoder/infer`, {
    parameters: { sequence_id: id, sequence_start: t === 0, sequence_end: t === STEPS - 1 },
    inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 1, D], data: token(id, t) }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.outputs[0].data as number[];
}

describe('a key/value cache in implicit state: token-by-token decoding over HTTP', () => {
  it('answers each step as the whole sequence at once does, with two sequences overlapping', async () => {
    // Sequence 1 sends its steps; sequence 2 starts three steps later, so their batched steps sit
    // at different positions of their caches.
    const answers: Record<number, number[][]> = { 1: [], 2: [] };
    for (let t = 0; t < STEPS + 3; t++) {
      const round: Array<Promise<void>> = [];
      if (t < STEPS) round.push(step(1, t).then((y) => void (answers[1][t] = y)));
      if (t >= 3) round.push(step(2, t - 3).then((y) => void (answers[2][t - 3] = y)));
      await Promise.all(round);
    }
    // The overlapping steps went through the model together (fewer executions than requests).
    const stats = (await (await fetch(`${base}/v2/models/decoder/stats`)).json()) as { model_stats: Array<{ inference_count: number; execution_count: number }> };
    expect(stats.model_stats[0].inference_count).toBe(2 * STEPS);
    expect(stats.model_stats[0].execution_count).toBeLessThan(2 * STEPS);
    const whole = CpuSession.load(path.join(tmp, 'whole.onnx'));
    try {
      for (const id of [1, 2]) {
        const x = Float32Array.from(Array.from({ length: STEPS }, (_, t) => token(id, t)).flat());
        const [y] = await whole.run([{ name: 'X', datatype: 'FP32', dims: [1, STEPS, D], data: x }]);
        const all = y.data as Float32Array; // [1, HEADS, STEPS, HEAD]
        for (let t = 0; t < STEPS; t++) {
          const want = Array.from({ length: HEADS }, (_, h) => Array.from(all.subarray((h * STEPS + t) * HEAD, (h * STEPS + t + 1) * HEAD))).flat();
          const got = answers[id][t];
          expect(got.length).toBe(want.length);
          for (let i = 0; i < want.length; i++) expect(Math.abs(got[i] - want[i]), `sequence ${id} step ${t} value ${i}`).toBeLessThan(1e-5);
        }
      }
    } finally {
      whole.close();
    }
  });
});
