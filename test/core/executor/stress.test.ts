/**
 * Reliability through the whole facade (TS validation, N-API, scheduler, ascend engine over
 * the fake AscendCL): many concurrent callers with random priorities, timeouts and batch
 * sizes. Every request settles exactly once, values are right, statistics add up, and an
 * unload in the middle of the load answers everything. GEBE_STRESS_REQUESTS sets the count
 * (default 100,000 in the suite; the native stress test runs 1,000,000 without JS).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InferError, loadModel, type ExecutorModel } from '../../../src/core/executor/index.js';
import type { ModelConfig } from '../../../src/core/config/model-config.js';
import { buildFakeAcl, writeFakeOm } from './fake-acl.js';

const total = Number(process.env.GEBE_STRESS_REQUESTS ?? 100_000);
let work: string;

const config: ModelConfig = {
  name: 'stress',
  max_batch_size: 8,
  input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [4] }],
  output: [{ name: 'y', data_type: 'TYPE_FP32', dims: [4] }],
  instance_group: [{ count: 3 }],
  dynamic_batching: {
    preferred_batch_size: [4, 8],
    max_queue_delay_microseconds: 50,
    priority_levels: 3,
    default_priority_level: 2,
    default_queue_policy: { allow_timeout_override: true },
    priority_queue_policy: {
      '1': { allow_timeout_override: true, max_queue_size: 100 },
      '3': { timeout_action: 'DELAY', default_timeout_microseconds: 100 },
    },
  },
};

beforeAll(() => {
  process.env.ASCEND_HOME_PATH = buildFakeAcl();
  delete process.env.FAKE_ACL_LOG;
  work = mkdtempSync(path.join(os.tmpdir(), 'gebe-stress-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Tally {
  ok: number;
  okRows: number;
  failed: number;
  wrong: number;
  reasons: Map<string, number>;
}

/** Runs `count` requests from `callers` concurrent loops; calls `midway` once, halfway. */
async function drive(model: ExecutorModel, count: number, callers: number, midway?: () => void): Promise<Tally> {
  const tally: Tally = { ok: 0, okRows: 0, failed: 0, wrong: 0, reasons: new Map() };
  let next = 0;
  let seed = 42;
  const random = (n: number) => {
    // xorshift32: the low bits of a power-of-two LCG repeat every few calls.
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const caller = async () => {
    while (next < count) {
      const i = next++;
      if (i === count >> 1) midway?.();
      const rows = 1 + random(4);
      const x = new Float32Array(rows * 4);
      for (let k = 0; k < x.length; k += 1) x[k] = (i % 1000) + k;
      try {
        const r = await model.infer({
          inputs: [{ name: 'x', datatype: 'FP32', shape: [rows, 4], data: new Uint8Array(x.buffer) }],
          priority: random(4),
          timeoutUs: random(4) === 0 ? 20 + random(500) : 0,
        });
        const y = new Float32Array(r.outputs[0]!.data.buffer, r.outputs[0]!.data.byteOffset, rows * 4);
        if (r.outputs[0]!.shape[0] !== rows || y[0] !== 2 * x[0]! || y[rows * 4 - 1] !== 2 * x[rows * 4 - 1]!) tally.wrong += 1;
        tally.ok += 1;
        tally.okRows += rows;
      } catch (err) {
        if (!(err instanceof InferError)) throw err;
        tally.failed += 1;
        tally.reasons.set(err.message, (tally.reasons.get(err.message) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  return tally;
}

describe(`executor stress (${total} requests)`, () => {
  it('answers every request exactly once and the statistics add up', async () => {
    const model = await loadModel(writeFakeOm(work, 'stress', { gears: [1, 2, 4, 8] }), '1', config);
    const tally = await drive(model, total, 64);
    expect(tally.ok + tally.failed).toBe(total);
    expect(tally.wrong).toBe(0);
    expect(model.unmatchedResults).toBe(0);
    expect(model.pendingCount()).toBe(0);
    const s = model.stats();
    expect(s.inference_stats.success.count).toBe(tally.ok);
    expect(s.inference_stats.fail.count).toBe(tally.failed);
    expect(s.inference_count).toBe(tally.okRows);
    expect(s.batch_stats.reduce((n, b) => n + b.compute_infer.count, 0)).toBe(s.execution_count);
    const is = s.inference_stats;
    expect(is.queue.ns).toBeLessThanOrEqual(is.success.ns);
    expect(is.compute_input.ns + is.compute_infer.ns + is.compute_output.ns).toBeLessThanOrEqual(is.success.ns);
    for (const message of tally.reasons.keys()) {
      expect(['Request timeout expired', "Exceeds maximum queue size for model 'stress'"].some((m) => message.startsWith(m))).toBe(true);
    }
    console.log(
      `  ${total} requests: ${tally.ok} ok (${s.inference_count} rows in ${s.execution_count} executions), ${tally.failed} errors`,
    );
    await model.unload();
  }, 600_000);

  it('unload under load answers every request', async () => {
    const model = await loadModel(writeFakeOm(work, 'stress', { gears: [1, 2, 4, 8] }), '1', config);
    let unloaded: Promise<void> | undefined;
    const count = Math.max(1000, Math.floor(total / 10));
    const tally = await drive(model, count, 64, () => {
      unloaded = model.unload();
    });
    await unloaded;
    expect(tally.ok + tally.failed).toBe(count);
    expect(tally.wrong).toBe(0);
    expect(model.unmatchedResults).toBe(0);
    expect(tally.failed).toBeGreaterThan(0);
  }, 600_000);
});
