import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTarget } from '../../../src/core/perf/http-target.js';
import { buildRequests } from '../../../src/core/perf/inputs.js';
import { LoadGenerator, type MeasurementOptions } from '../../../src/core/perf/load-generator.js';
import type { Measurement } from '../../../src/core/perf/measurement.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startPerfServer, type PerfServer } from '../../helpers/perf-server.js';
import { writePerfRepository } from '../../helpers/perf-repository.js';

let server: PerfServer;
beforeAll(async () => {
  server = await startPerfServer(writePerfRepository(mkdtempSync(path.join(tmpdir(), 'gebe-perf-lg-'))));
});
afterAll(async () => server?.stop());

const options: MeasurementOptions = {
  intervalMs: 300, mode: 'time_windows', requestCount: 50, stabilityPercentage: 1000, maxTrials: 3, warmupRequestCount: 5,
};

async function sweep(batchSizes: number[], levels: number[], clientThreads: number, measurement = options) {
  const target = new HttpTarget(server.http, 'trivial', undefined, clientThreads > 0);
  const model = await target.describe();
  const generator = new LoadGenerator(target, measurement);
  const events: string[] = [];
  const windows: Array<{ batchSize: number; m: Measurement }> = [];
  generator.on('start', () => events.push('start'));
  generator.on('setting', () => events.push('setting'));
  generator.on('window', ({ setting, measurement }) => { events.push('window'); windows.push({ batchSize: setting.batchSize, m: measurement }); });
  generator.on('result', () => events.push('result'));
  generator.on('done', () => events.push('done'));
  const results = await generator.run({
    batchSizes, levels, kind: 'concurrency', distribution: 'constant', clientThreads,
    requests: (b) => buildRequests(model, b, { INPUT0: [4] }, { kind: 'zero' }),
  });
  await target.close();
  return { results, windows, events };
}

describe('LoadGenerator against a KServe v2 server', () => {
  it('emits start, setting, window…, result, done in order', async () => {
    const { events } = await sweep([1], [2], 0);
    expect(events).toEqual(['start', 'setting', 'window', 'window', 'window', 'result', 'done']);
  });

  it("agrees within 3% with the server's inference_count delta for each window, counting b inferences per request", async () => {
    // Count windows of 400 requests: the requests in flight at a window's edges (at most the
    // concurrency) are then well under 1% of what the window counts, whatever the machine's load.
    const { windows } = await sweep([1, 8], [2], 2, { ...options, mode: 'count_windows', requestCount: 400 });
    expect(windows).toHaveLength(6);
    for (const { batchSize, m } of windows) {
      expect(m.inferences).toBe(m.requests * batchSize);
      const serverRate = m.server!.inferenceCount / (m.durationMs / 1000);
      expect(Math.abs(m.throughput - serverRate) / serverRate).toBeLessThan(0.03);
      // The server ran one execution per request: b inferences each.
      expect(m.server!.inferenceCount).toBe(m.server!.executionCount * batchSize);
    }
  });

  it('merges the last three windows into the reported result', async () => {
    const { results, windows } = await sweep([1], [1], 0);
    const sum = windows.reduce((a, w) => a + w.m.requests, 0);
    expect(results[0]!.measurement.requests).toBe(sum);
    expect(results[0]!.measurement.latency.count).toBe(sum);
  });
});
