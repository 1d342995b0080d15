import { mkdtempSync, writeFileSync } from 'node:fs';
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

describe('--request-intervals', () => {
  it('is one setting at the request rate its intervals make, on client threads as a request rate', () => {
    const file = path.join(empty, 'intervals.txt');
    writeFileSync(file, '1000\n3000\n');
    const o = parsePerfFlags({ model: 'm', url: 'h:1', requestIntervals: 'intervals.txt' }, empty);
    expect(o).toMatchObject({ load: 'request-intervals', levels: [500], requestIntervals: { file, intervalsUs: [1000, 3000] }, clientThreads: availableParallelism() });
  });

  it("refuses it with --concurrency, --concurrency-range or --request-rate-range, as perf_analyzer does, and names --request-distribution as without effect", () => {
    writeFileSync(path.join(empty, 'gaps.txt'), '100\n');
    for (const [flags, flag] of [[{ concurrency: '2' }, '--concurrency'], [{ concurrencyRange: '1:4' }, '--concurrency-range'], [{ requestRateRange: '10' }, '--request-rate-range']] as const) {
      expect(usage({ model: 'm', url: 'h:1', requestIntervals: 'gaps.txt', ...flags })).toBe(
        `--request-intervals and ${flag} both given: the intervals file is the run's schedule; drop ${flag} (perf_analyzer takes one load mode per run too)`);
    }
    expect(parsePerfFlags({ model: 'm', url: 'h:1', requestIntervals: 'gaps.txt', requestDistribution: 'poisson' }, empty).ignoredFlags).toEqual(['--request-distribution (the --request-intervals file sets every gap)']);
    expect(usage({ model: 'm', url: 'h:1', requestIntervals: 'gaps.txt', sequenceLength: '4' })).toContain('gebe perf does not run sequences at a fixed request rate or on --request-intervals');
    expect(usage({ model: 'm', url: 'h:1', requestIntervals: 'missing.txt' })).toBe(`--request-intervals ${path.join(empty, 'missing.txt')}: file not found; give a text file with the time between requests in microseconds, one per line, e.g. 1000`);
  });
});

describe('--string-length and --string-data', () => {
  it('go with generated data, --string-length bounded to 1 MiB', () => {
    expect(parsePerfFlags({ model: 'm', url: 'h:1', inputData: 'random', stringLength: '16' }, empty).inputData).toEqual({ kind: 'random', strings: { length: 16 } });
    expect(parsePerfFlags({ model: 'm', url: 'h:1', stringData: 'héllo' }, empty).inputData).toEqual({ kind: 'zero', strings: { length: 128, data: 'héllo' } });
    expect(parsePerfFlags({ model: 'm', url: 'h:1', inputData: 'random', stringData: '' }, empty).inputData).toEqual({ kind: 'random' });
    expect(usage({ model: 'm', url: 'h:1', stringLength: '0' })).toBe('--string-length "0" is not a whole number between 1 and 1048576; e.g. --string-length 128');
    expect(usage({ model: 'm', url: 'h:1', stringLength: '1048577' })).toBe('--string-length "1048577" is not a whole number between 1 and 1048576; e.g. --string-length 128');
    expect(usage({ model: 'm', url: 'h:1', stringData: 'é'.repeat(600_000) })).toBe("--string-data is 1200000 bytes, more than gebe perf's limit of 1048576 for one string; give a shorter one");
  });

  it('are named as without effect where the data leaves them none, as perf_analyzer leaves them', () => {
    const ignored = (flags: object) => parsePerfFlags({ model: 'm', url: 'h:1', ...flags }, empty).ignoredFlags;
    expect(ignored({ stringLength: '16' })).toEqual(["--string-length (gebe perf's zero data sends empty strings: add --input-data random for random strings of this length)"]);
    expect(ignored({ inputData: 'random', stringLength: '16', stringData: 'x' })).toEqual(['--string-length (--string-data gives every string)']);
    expect(ignored({ inputData: 'data.json', stringLength: '16', stringData: 'x' })).toEqual([
      "--string-length (the --input-data file or directory gives every input's values)", "--string-data (the --input-data file or directory gives every input's values)"]);
    expect(ignored({ inputData: 'random', stringLength: '16' })).toBeUndefined();
  });
});

describe('--request-parameter', () => {
  it('is parsed for every target, in process included', () => {
    expect(parsePerfFlags({ model: 'm', url: 'h:1', requestParameter: ['a:1:int', 'b:x:string'] }, empty).requestParameters).toEqual({ a: 1, b: 'x' });
    expect(parsePerfFlags({ model: 'm', modelRepository: '.', requestParameter: ['c:true:bool'] }, empty).requestParameters).toEqual({ c: true });
    expect(parsePerfFlags({ model: 'm', url: 'h:1' }, empty).requestParameters).toBeUndefined();
  });
});
