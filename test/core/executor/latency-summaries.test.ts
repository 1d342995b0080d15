/**
 * JsLatencySummaries, the summaries of the models JS runs, on the native core's estimator: the
 * count and sum of every observation, quantiles by rank within 1/64 of the value, an empty reading
 * for a family nothing observed, and bad arguments refused by the addon.
 */
import { describe, expect, it } from 'vitest';
import { JsLatencySummaries } from '../../../src/core/executor/latency-summaries.js';
import { loadNativeAddon } from '../../../src/core/executor/native.js';

describe('JsLatencySummaries', () => {
  it('reads quantiles by rank, within 1/64 of the observed value', () => {
    const s = new JsLatencySummaries();
    for (let us = 1; us <= 200; us++) s.observe('queue', us * 1000);
    s.observe('compute_infer', 5000, 3);
    const r = s.read([0.5, 0.99], ['queue', 'compute_infer', 'request']);
    expect(r.queue!.count).toBe(200);
    expect(r.queue!.sumUs).toBe(20100);
    expect(Math.abs(r.queue!.quantilesUs[0]! - 100)).toBeLessThanOrEqual(100 / 64);
    expect(Math.abs(r.queue!.quantilesUs[1]! - 198)).toBeLessThanOrEqual(198 / 64);
    expect(r.compute_infer).toMatchObject({ count: 3, sumUs: 15 });
    expect(r.request!.count).toBe(0);
    expect(r.request!.quantilesUs.every(Number.isNaN)).toBe(true);
  });

  it('is refused bad arguments by the addon, which names the call', () => {
    const Summary = loadNativeAddon().LatencySummary as new () => { observe(ns: unknown, n?: unknown): void; read(q: unknown): unknown };
    const summary = new Summary();
    expect(() => summary.observe(-1)).toThrow('LatencySummary.observe: expected (ns >= 0, n >= 0)');
    expect(() => summary.observe(Number.NaN)).toThrow('LatencySummary.observe');
    expect(() => summary.read([1.5])).toThrow('LatencySummary.read: every quantile must be a number in [0, 1]');
    expect(() => summary.read('0.5')).toThrow('LatencySummary.read: expected quantiles: number[]');
  });
});
