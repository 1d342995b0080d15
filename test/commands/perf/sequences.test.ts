/**
 * gebe perf against the sequence example (fixtures/repositories/sequence-example): in process,
 * over HTTP and over gRPC, with --sequence-length and --sequence-id-range, and with perf_analyzer's
 * defaults for a sequence model. A request outside a started sequence would fail its setting with
 * the server's error, so measured rows mean every sequence was started, driven and ended in order.
 */
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIO } from '../../../src/io.js';
import { parsePerfFlags } from '../../../src/commands/perf/options.js';
import { runPerf } from '../../../src/commands/perf/run.js';
import { repoRoot, startRealServer, type RealServer } from '../../core/server/e2e/helpers.js';

const FAST = { measurementInterval: '150', stabilityPercentage: '1000', maxTrials: '4' };
const EXAMPLE = path.join(repoRoot, 'fixtures/repositories/sequence-example');

let server: RealServer;
beforeAll(async () => {
  const repo = mkdtempSync(path.join(tmpdir(), 'gebe-perf-seq-'));
  cpSync(EXAMPLE, repo, { recursive: true });
  server = await startRealServer(repo);
});
afterAll(async () => {
  await server?.stop();
});

async function inferenceCount(): Promise<number> {
  const stats = await (await fetch(`${server.http}/v2/models/accumulator/stats`)).json() as { model_stats: Array<{ inference_count: number }> };
  return stats.model_stats[0]!.inference_count;
}

describe('gebe perf on a sequence model', () => {
  it('runs in process with --sequence-length and --sequence-id-range', async () => {
    const opts = parsePerfFlags({ model: 'accumulator', modelRepository: EXAMPLE, concurrency: '1,3', sequenceLength: '5', sequenceLengthVariation: '40', sequenceIdRange: '100:199', ...FAST }, '/');
    expect(opts.sequenceLength).toBe(5);
    expect(opts.sequenceIdRange).toEqual({ idStart: 100, idEnd: 199 });
    const report = await runPerf(opts, { io: memoryIO() });
    expect(report.rows.map((r) => [r.concurrency, r.status === 'failed' ? r.note : 'measured'])).toEqual([[1, 'measured'], [3, 'measured']]);
    for (const r of report.rows) expect(r.server!.inferenceCount).toBeGreaterThan(0);
    expect(report.settings?.sequences).toEqual({ length: 5, variation: 40, idStart: 100, idEnd: 199 });
  });

  it("uses perf_analyzer's defaults for a sequence model given no sequence flags", async () => {
    const report = await runPerf(parsePerfFlags({ model: 'accumulator', modelRepository: EXAMPLE, concurrency: '2', ...FAST }, '/'), { io: memoryIO() });
    expect(report.rows[0]!.status).not.toBe('failed');
  });

  for (const protocol of ['http', 'grpc'] as const) {
    it(`drives sequences over ${protocol}`, async () => {
      const before = await inferenceCount();
      const url = protocol === 'http' ? server.http.replace('http://', '') : server.grpc;
      const opts = parsePerfFlags({ model: 'accumulator', url, protocol, concurrency: '1,4', sequenceLength: '4', sequenceIdRange: '1000:1999', clientThreads: '0', ...FAST }, '/');
      const report = await runPerf(opts, { io: memoryIO() });
      expect(report.rows.map((r) => (r.status === 'failed' ? r.note : 'measured'))).toEqual(['measured', 'measured']);
      expect(await inferenceCount()).toBeGreaterThan(before);
    });
  }

  it('refuses sequence flags it cannot honour, with the fix', () => {
    expect(() => parsePerfFlags({ model: 'm', modelRepository: EXAMPLE, requestRateRange: '10', sequenceLength: '4' }, '/')).toThrow(/needs --concurrency/);
    expect(() => parsePerfFlags({ model: 'm', modelRepository: EXAMPLE, concurrency: '8', sequenceIdRange: '1:4' }, '/')).toThrow('--sequence-id-range 1:4 gives 4 ids, fewer than the concurrency 8');
    expect(() => parsePerfFlags({ model: 'm', modelRepository: EXAMPLE, sequenceIdRange: '0:9' }, '/')).toThrow(/is not start\[:end\]/);
    expect(() => parsePerfFlags({ model: 'm', modelRepository: EXAMPLE, sequenceLength: '0' }, '/')).toThrow(/--sequence-length "0"/);
    expect(() => parsePerfFlags({ model: 'm', modelRepository: EXAMPLE, sequenceLengthVariation: '101' }, '/')).toThrow(/--sequence-length-variation "101" is not a number between 0 and 100/);
  });
});
