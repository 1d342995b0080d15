import { mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { parsePerfFlags } from '../../../src/commands/perf/options.js';

const empty = mkdtempSync(path.join(tmpdir(), 'gebe-perf-opts-'));

function usage(flags: Parameters<typeof parsePerfFlags>[0]): string {
  try { parsePerfFlags(flags, empty); } catch (err) { expect(err).toBeInstanceOf(UsageError); return (err as Error).message; }
  throw new Error('expected a UsageError');
}

describe('parsePerfFlags', () => {
  it("uses perf_analyzer's defaults", () => {
    const o = parsePerfFlags({ model: 'm', url: 'localhost:8000' }, empty);
    expect(o).toMatchObject({
      target: { kind: 'remote', url: 'localhost:8000', protocol: 'http' },
      load: 'concurrency', levels: [1], batchSizes: [1], distribution: 'constant', inputData: { kind: 'zero' }, json: false,
      measurement: { intervalMs: 5000, mode: 'time_windows', requestCount: 50, stabilityPercentage: 10, maxTrials: 10, warmupRequestCount: 0 },
      clientThreads: 1,
    });
    expect(parsePerfFlags({ model: 'm', url: 'h:1', concurrency: '1:64' }, empty).clientThreads).toBe(Math.min(availableParallelism(), 64));
  });

  it('accepts perf_analyzer spellings and a request-rate sweep', () => {
    expect(parsePerfFlags({ model: 'm', url: 'h:1', concurrencyRange: '2:8:2' }, empty).levels).toEqual([2, 4, 6, 8]);
    const rate = parsePerfFlags({ model: 'm', url: 'h:1', requestRateRange: '100:300:100', requestDistribution: 'poisson' }, empty);
    expect(rate).toMatchObject({ load: 'request-rate', levels: [100, 200, 300], distribution: 'poisson' });
  });

  it('refuses conflicting or malformed flags with the fix', () => {
    expect(usage({ model: 'm', url: 'h:1', concurrency: '1', requestRateRange: '10' })).toContain('sweep one of them per run');
    expect(usage({ model: 'm', url: 'h:1', modelRepository: 'r' })).toContain('use -u for a running server or --model-repository');
    expect(usage({ model: 'm', protocol: 'grpc' })).toBe('-i grpc needs a server: add -u host:port');
    expect(usage({ model: 'm', url: 'h:1', streaming: true })).toBe("--streaming is gRPC's streaming API (ModelStreamInfer): add -i grpc");
    expect(usage({ model: 'm', streaming: true })).toBe('--streaming needs a server: add -u host:port -i grpc');
    expect(parsePerfFlags({ model: 'm', url: 'h:1', protocol: 'grpc', streaming: true }, empty).target).toEqual({ kind: 'remote', url: 'h:1', protocol: 'grpc', streaming: true });
    expect(usage({ model: 'm', url: 'h:1', protocol: 'tcp' })).toBe('-i/--protocol "tcp" is not one of http, grpc; e.g. -i/--protocol http');
    expect(usage({ model: 'm', url: 'h:1', measurementMode: 'windows' })).toContain('is not one of time_windows, count_windows');
    expect(usage({ model: 'm', url: 'h:1', maxTrials: '2' })).toBe('-r/--max-trials "2" is not a whole number of at least 3; e.g. -r/--max-trials 10');
    expect(usage({ model: 'm', url: 'h:1', percentile: '100' })).toContain('between 1 and 99.999');
    expect(usage({ model: 'm', url: 'h:1', measurementInterval: '0.5' })).toContain('--measurement-interval "0.5" is not a whole number');
  });
});
