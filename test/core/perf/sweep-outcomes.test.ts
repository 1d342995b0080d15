/**
 * What a sweep does with a setting that never stabilises or whose requests fail: it keeps the row,
 * marked, and goes on; only a target that stops describing the model ends it. The target here is a
 * stand-in that refuses concurrent requests at batch 2 (as a server with a full queue answers 503)
 * and can be switched off, driven by the real load generator and in-thread drivers.
 */
import { describe, expect, it } from 'vitest';
import { GebeError } from '../../../src/errors.js';
import { InThreadDriver } from '../../../src/core/perf/driver-handle.js';
import { LoadGenerator, type LoadTarget, type MeasurementOptions } from '../../../src/core/perf/load-generator.js';
import type { InferClient, ModelDescription, RequestInputs } from '../../../src/core/kserve/client/types.js';

const model: ModelDescription = { name: 'm', version: '1', maxBatchSize: 8, inputs: [{ name: 'x', datatype: 'FP32', shape: [-1, 1] }], outputs: [] };

class StandIn implements LoadTarget {
  readonly label = 'stand-in';
  serving = true;
  readonly endpoint = {
    describe: async () => { if (!this.serving) throw new GebeError('cannot reach a KServe v2 server at stand-in (ECONNREFUSED)'); return model; },
    statistics: async () => undefined,
    close: async () => {},
  };

  async createDrivers(requests: RequestInputs[]): Promise<InThreadDriver[]> {
    const batch = requests[0]![0]!.shape[0];
    let inFlight = 0;
    const client: InferClient = {
      infer: async () => {
        inFlight++;
        await new Promise((resolve) => setTimeout(resolve, 1));
        const refused = (batch === 2 && inFlight > 1) || !this.serving;
        inFlight--;
        if (refused) throw new GebeError('the server at stand-in answered HTTP 503 to an inference request: queue is full');
        return undefined;
      },
      close: async () => {},
    };
    return [new InThreadDriver(client)];
  }
}

const requests = (b: number): RequestInputs[] => [[{ name: 'x', datatype: 'FP32', shape: [b, 1], data: new Uint8Array(4 * b) }]];
const options: MeasurementOptions = { intervalMs: 100, mode: 'time_windows', requestCount: 50, stabilityPercentage: 1000, maxTrials: 4, warmupRequestCount: 0 };

describe('a sweep with settings that fail or never stabilise', () => {
  it('marks a failed setting with its error and measures the settings after it', async () => {
    const generator = new LoadGenerator(new StandIn(), options);
    const results = await generator.run({ batchSizes: [1, 2, 4], levels: [2], kind: 'concurrency', distribution: 'constant', clientThreads: 0, requests });
    // Measured settings are stable or, on a loaded machine, unstable; never failed.
    expect(results.map((r) => [r.setting.batchSize, r.status === 'failed' ? 'failed' : 'measured'])).toEqual([[1, 'measured'], [2, 'failed'], [4, 'measured']]);
    expect(results[1]!.note).toMatch(/answered HTTP 503 to an inference request: queue is full/);
    expect(results[1]!.measurement).toBeUndefined();
    expect(results[2]!.measurement!.requests).toBeGreaterThan(0);
  });

  it('keeps an unstable setting, marked, with the merge of its last windows, and goes on', async () => {
    // 0.0001%: no three windows of real timing agree that closely.
    const generator = new LoadGenerator(new StandIn(), { ...options, stabilityPercentage: 0.0001, maxTrials: 3 });
    const results = await generator.run({ batchSizes: [1], levels: [1, 2], kind: 'concurrency', distribution: 'constant', clientThreads: 0, requests });
    expect(results.map((r) => r.status)).toEqual(['unstable', 'unstable']);
    expect(results[0]!.windows).toHaveLength(3);
    expect(results[0]!.measurement!.requests).toBe(results[0]!.windows.reduce((a, w) => a + w.requests, 0));
    expect(results[0]!.note).toMatch(/^did not stabilise within 3 windows \(last 3: throughput varied [\d.]+%, latency [\d.]+%, allowed 0.0001%\)$/);
    expect(results[0]!.hint).toBe('for stable figures raise --measurement-interval (now 100 ms), -s/--stability-percentage or -r/--max-trials (now 3)');
  });

  it('ends the sweep when the target stops serving the model', async () => {
    const target = new StandIn();
    const generator = new LoadGenerator(target, options);
    generator.once('result', () => { target.serving = false; });
    await expect(generator.run({ batchSizes: [1], levels: [1, 2, 4], kind: 'concurrency', distribution: 'constant', clientThreads: 0, requests }))
      .rejects.toThrow(/queue is full/);
  });
});
