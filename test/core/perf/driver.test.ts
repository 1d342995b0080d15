import { describe, expect, it } from 'vitest';
import { LoadDriver } from '../../../src/core/perf/driver.js';
import { splitPlan } from '../../../src/core/perf/driver-handle.js';
import type { InferClient } from '../../../src/core/kserve/client/types.js';

/** A client whose "server" answers on the next timer turn and counts what it was sent. */
function timerClient() {
  let sent = 0;
  let maxOutstanding = 0;
  let outstanding = 0;
  const client: InferClient = {
    infer: () => {
      sent++;
      outstanding++;
      maxOutstanding = Math.max(maxOutstanding, outstanding);
      return new Promise((resolve) => setTimeout(() => { outstanding--; resolve(undefined); }, 1));
    },
    close: async () => {},
  };
  return { client, sent: () => sent, maxOutstanding: () => maxOutstanding };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('LoadDriver', () => {
  it('keeps exactly N requests outstanding in concurrency mode and counts each one once', async () => {
    const t = timerClient();
    const driver = new LoadDriver(t.client, (err) => { throw err; });
    driver.start({ kind: 'concurrency', concurrency: 3 });
    await sleep(50);
    await driver.stop();
    const w = driver.snapshot();
    expect(t.maxOutstanding()).toBe(3);
    expect(w.requests).toBe(t.sent());
    expect(w.histogram.totalCount).toBe(t.sent());
  });

  it('measures from the scheduled send time at a fixed rate, so a stalled client cannot hide latency', async () => {
    const t = timerClient();
    const driver = new LoadDriver(t.client, (err) => { throw err; });
    driver.start({ kind: 'rate', requestsPerSecond: 1000, distribution: 'constant' });
    await sleep(20);
    // Block the event loop for 100 ms: about 100 sends fall due while nothing can be sent.
    const until = performance.now() + 100;
    while (performance.now() < until) { /* stall */ }
    await sleep(30);
    await driver.stop();
    const w = driver.snapshot();
    // Coordinated-omission correction: the first request due during the stall waited ~100 ms.
    expect(w.histogram.maxValue).toBeGreaterThanOrEqual(90_000);
    // And the delayed requests were all sent late rather than dropped (~150 due in ~150 ms).
    expect(w.requests).toBeGreaterThanOrEqual(120);
  });

  it('sends on --request-intervals\' schedule: the burst its zero gaps make, then nothing until the next gap', async () => {
    // An hour after the burst: nothing more can fall due while the test runs, whatever the machine's load.
    const intervalsUs = [0, 0, 0, 3_600_000_000];
    const solo = timerClient();
    const driver = new LoadDriver(solo.client, (err) => { throw err; });
    driver.start({ kind: 'intervals', intervalsUs });
    // Dealt out to two drivers (requests 0 and 2, and 1), they send the same burst together.
    const pair = [timerClient(), timerClient()];
    const shares = splitPlan({ kind: 'intervals', intervalsUs }, 2);
    const drivers = shares.map((share, i) => new LoadDriver(pair[i]!.client, (err) => { throw err; }));
    drivers.forEach((d, i) => d.start(shares[i]!));
    await sleep(50);
    await Promise.all([driver, ...drivers].map((d) => d.stop()));
    expect(solo.sent()).toBe(3);
    expect(pair.map((p) => p.sent())).toEqual([2, 1]);
    expect(driver.snapshot().requests).toBe(3);
  });

  it('reports the first failure and stops sending', async () => {
    let calls = 0;
    const errors: unknown[] = [];
    const driver = new LoadDriver({ infer: async () => { calls++; throw new Error('boom'); }, close: async () => {} }, (err) => errors.push(err));
    driver.start({ kind: 'concurrency', concurrency: 1 });
    await driver.stop();
    await sleep(5);
    expect(calls).toBe(1);
    expect(errors.map((e) => (e as Error).message)).toEqual(['boom']);
  });
});

describe('splitPlan', () => {
  it('spreads concurrency evenly and drops idle drivers', () => {
    expect(splitPlan({ kind: 'concurrency', concurrency: 5 }, 2)).toEqual([{ kind: 'concurrency', concurrency: 3 }, { kind: 'concurrency', concurrency: 2 }]);
    expect(splitPlan({ kind: 'concurrency', concurrency: 1 }, 4)).toHaveLength(1);
  });

  it('deals a list of intervals out to every driver, each its share of the one schedule', () => {
    expect(splitPlan({ kind: 'intervals', intervalsUs: [10, 20] }, 3)).toEqual([0, 1, 2].map((index) => ({ kind: 'intervals', intervalsUs: [10, 20], share: { index, of: 3 } })));
  });

  it('gives each driver an equal share of a request rate', () => {
    expect(splitPlan({ kind: 'rate', requestsPerSecond: 300, distribution: 'poisson' }, 3).map((p) => p.kind === 'rate' && p.requestsPerSecond)).toEqual([100, 100, 100]);
  });
});

describe('LoadDriver.stop', () => {
  it('gives up waiting for a request that never answers after the grace period', async () => {
    const driver = new LoadDriver({ infer: () => new Promise(() => {}), close: async () => {} }, () => {});
    driver.start({ kind: 'concurrency', concurrency: 2 });
    await driver.stop(30);
    expect(driver.snapshot().requests).toBe(0);
  });
});
