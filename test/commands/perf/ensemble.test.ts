/**
 * `gebe perf` against an ensemble (fixtures/ensemble_repository), in process and over HTTP and
 * gRPC to a real server: it measures like any model, and its server-side breakdown lists the
 * composing models, each counting the ensemble's requests, as perf_analyzer does for ensembles.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIO } from '../../../src/io.js';
import { parsePerfFlags } from '../../../src/commands/perf/options.js';
import { runPerf } from '../../../src/commands/perf/run.js';
import type { PerfReport } from '../../../src/core/perf/report.js';
import { startPerfServer, type PerfServer } from '../../helpers/perf-server.js';

const repository = path.resolve(import.meta.dirname, '..', '..', '..', 'fixtures', 'ensemble_repository');
const FAST = { measurementInterval: '150', stabilityPercentage: '1000', maxTrials: '3', batchSize: '1,2' };

function expectComposing(report: PerfReport, out: string): void {
  expect(report.model.name).toBe('digits_pipeline');
  for (const row of report.rows) {
    const s = row.server!;
    expect(s.executionCount).toBeGreaterThan(0);
    expect(s.composing?.map((c) => c.name)).toEqual(['preprocess', 'mnist', 'postprocess']);
    for (const c of s.composing!) expect(c.inferenceCount).toBeGreaterThan(0);
    // The ensemble's compute is the sum of its composing models' (perf_analyzer's rule).
    expect(s.computeInferUs).toBeCloseTo(s.composing!.reduce((a, c) => a + c.computeInferUs, 0), 6);
  }
  expect(out).toMatch(/composing models/);
  expect(out).toMatch(/batch 2, concurrency 1 {2}mnist v1: \d+ inferences/);
}

describe('gebe perf against an ensemble', () => {
  it('in process: loads the ensemble with its composing models and breaks the server side down by them', async () => {
    const io = memoryIO();
    const report = await runPerf(parsePerfFlags({ model: 'digits_pipeline', modelRepository: repository, ...FAST }, '/'), { io });
    expect(report.target).toMatch(/^in process \(ensemble of /);
    for (const row of report.rows) expect(row.server!.inferenceCount).toBe(row.server!.executionCount * row.batchSize);
    expectComposing(report, io.out());
  });

  describe('against gebe serve', () => {
    let server: PerfServer;
    beforeAll(async () => {
      server = await startPerfServer(repository);
    });
    afterAll(async () => server?.stop());

    it.each(['http', 'grpc'] as const)('%s', async (protocol) => {
      const io = memoryIO();
      const address = protocol === 'http' ? server.http : server.grpc;
      const report = await runPerf(parsePerfFlags({ model: 'digits_pipeline', url: address, protocol, clientThreads: '0', ...FAST }, '/'), { io });
      expectComposing(report, io.out());
    });
  });
});
