import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { LoadDriver } from '../../../src/core/perf/driver.js';
import { RequestRecorder, type RequestLogData } from '../../../src/core/perf/request-log.js';
import { ProfileExport } from '../../../src/core/perf/profile-export.js';
import type { LoadGenerator } from '../../../src/core/perf/load-generator.js';
import type { InferClient } from '../../../src/core/kserve/client/types.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nowEpochMs = () => performance.timeOrigin + performance.now();

describe('RequestRecorder', () => {
  it('keeps starts, responses and sequence ids, and counts what its budget cannot hold instead of keeping it', () => {
    const recorder = new RequestRecorder(5);
    const a = recorder.begin(1)!;
    recorder.response(a, 2);
    recorder.response(a, 3);
    recorder.finish(a, 7);
    const b = recorder.begin(4)!;
    recorder.response(b, 5);
    recorder.response(b, 6); // the budget (5) is spent: b overflows
    recorder.finish(b, 0);
    expect(recorder.begin(8)).toBeUndefined();
    recorder.finish(undefined, 0);
    const log = recorder.take();
    expect(Array.from(log.starts)).toEqual([performance.timeOrigin + 1]);
    expect(Array.from(log.sequenceIds)).toEqual([7]);
    expect(Array.from(log.responseCounts)).toEqual([2]);
    expect(Array.from(log.responses)).toEqual([performance.timeOrigin + 2, performance.timeOrigin + 3]);
    expect(log.dropped).toBe(2);
    // The next window starts empty; the budget stays spent.
    expect(recorder.take()).toMatchObject({ dropped: 0, starts: new Float64Array() });
  });
});

describe('LoadDriver recording requests', () => {
  it('records each request once, its end as its one response for a client that does not stream', async () => {
    const client: InferClient = { infer: () => new Promise((r) => setTimeout(() => r(undefined), 1)), close: async () => {} };
    const driver = new LoadDriver(client, (err) => { throw err; });
    const before = nowEpochMs();
    driver.start({ kind: 'concurrency', concurrency: 2, record: { budget: 1_000_000 } });
    await sleep(40);
    await driver.stop();
    const after = nowEpochMs();
    const w = driver.snapshot();
    const log = w.log!;
    expect(log.starts.length).toBe(w.requests);
    expect(w.requests).toBeGreaterThan(4);
    expect(Array.from(log.responseCounts).every((n) => n === 1)).toBe(true);
    for (let i = 0; i < log.starts.length; i++) {
      expect(log.starts[i]!).toBeGreaterThanOrEqual(before);
      expect(log.responses[i]!).toBeGreaterThanOrEqual(log.starts[i]!);
      expect(log.responses[i]!).toBeLessThanOrEqual(after);
    }
  });

  it('keeps every response a streaming client reports, and nothing when the plan does not record', async () => {
    const client: InferClient = {
      streamsResponses: true,
      infer: async (_step, onResponse) => {
        for (let i = 0; i < 3; i++) {
          await sleep(1);
          onResponse?.();
        }
        return undefined;
      },
      close: async () => {},
    };
    const driver = new LoadDriver(client, (err) => { throw err; });
    driver.start({ kind: 'concurrency', concurrency: 1, record: { budget: 1_000_000 } });
    await sleep(30);
    await driver.stop();
    const log = driver.snapshot().log!;
    expect(log.starts.length).toBeGreaterThan(1);
    expect(Array.from(log.responseCounts).every((n) => n === 3)).toBe(true);
    expect(log.responses.length).toBe(3 * log.starts.length);
    driver.start({ kind: 'concurrency', concurrency: 1 });
    await sleep(10);
    await driver.stop();
    expect(driver.snapshot().log).toBeUndefined();
  });
});

function logOf(requests: Array<{ start: number; responses: number[]; sequenceId?: number }>, dropped = 0): RequestLogData {
  return {
    starts: Float64Array.from(requests.map((r) => r.start)),
    sequenceIds: Float64Array.from(requests.map((r) => r.sequenceId ?? 0)),
    responseCounts: Uint32Array.from(requests.map((r) => r.responses.length)),
    responses: Float64Array.from(requests.flatMap((r) => r.responses)),
    dropped,
  };
}

describe('ProfileExport', () => {
  it("writes perf_analyzer's layout: an experiment per setting, nanosecond timestamps, shared window boundaries", async () => {
    const events = new EventEmitter();
    const profile = new ProfileExport();
    profile.attach(events as unknown as LoadGenerator);
    const t = 1_765_000_000_000; // ms since the epoch
    const setting = { batchSize: 1, concurrency: 2 };
    events.emit('window', { setting, requests: { startMs: t, endMs: t + 10, logs: [logOf([{ start: t + 1, responses: [t + 2.5] }]), logOf([{ start: t + 3, responses: [t + 4, t + 5], sequenceId: 9 }])] } });
    events.emit('window', { setting, requests: { startMs: t + 10, endMs: t + 20, logs: [logOf([{ start: t + 11, responses: [t + 12] }], 4)] } });
    events.emit('window', { setting: { batchSize: 4, requestRate: 50 }, requests: { startMs: t + 30, endMs: t + 40, logs: [logOf([])] } });
    events.emit('window', { setting: { batchSize: 4, concurrency: 1 } }); // a window without logs adds nothing
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'gebe-profile-')), 'profile.json');
    await profile.write(file, { version: '1.2.3', serviceKind: 'triton' });
    const text = readFileSync(file, 'utf8');
    // Whole nanoseconds, written exactly (JSON.parse would round them).
    expect(text).toContain('"timestamp":1765000000001000000,"request_inputs":{},"response_timestamps":[1765000000002500000],"response_outputs":[{}]}');
    expect(text).toContain('"timestamp":1765000000003000000,"sequence_id":9,');
    expect(text).toContain('"window_boundaries":[1765000000000000000,1765000000010000000,1765000000020000000]');
    const parsed = JSON.parse(text) as { experiments: Array<{ experiment: unknown; requests: Array<{ response_timestamps: number[]; response_outputs: unknown[] }> }>; version: string; service_kind: string; endpoint: string };
    expect(parsed.experiments.map((e) => e.experiment)).toEqual([
      { mode: 'concurrency', value: 2, batch_size: 1 },
      { mode: 'request_rate', value: 50, batch_size: 4 },
    ]);
    expect(parsed.experiments[0]!.requests.map((r) => [r.response_timestamps.length, r.response_outputs.length])).toEqual([[1, 1], [2, 2], [1, 1]]);
    expect(parsed.experiments[1]!.requests).toEqual([]);
    expect([parsed.version, parsed.service_kind, parsed.endpoint]).toEqual(['1.2.3', 'triton', '']);
    expect([profile.keptRequests(), profile.droppedRequests()]).toEqual([3, 4]);
  });
});
