import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../../src/io.js';
import { parsePerfFlags } from '../../../src/commands/perf/options.js';
import { runPerf } from '../../../src/commands/perf/run.js';
import { identityLoader } from '../../helpers/perf-server.js';

const CONFIG = `name: "ident"
backend: "ge"
max_batch_size: 8
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]
`;

function repository(parent = mkdtempSync(path.join(tmpdir(), 'gebe-perf-'))): string {
  const repo = path.join(parent, 'model_repository');
  mkdirSync(path.join(repo, 'ident', '1'), { recursive: true });
  mkdirSync(path.join(repo, 'ident', '3'), { recursive: true });
  writeFileSync(path.join(repo, 'ident', 'config.pbtxt'), CONFIG);
  return repo;
}

const FAST = { measurementInterval: '100', stabilityPercentage: '1000', maxTrials: '3' };

describe('gebe perf in process', () => {
  it('loads the latest version from ./model_repository and counts batch × requests against the model statistics', async () => {
    const repo = repository();
    const cwd = path.dirname(repo);
    const io = memoryIO({ cwd });
    const opts = parsePerfFlags({ model: 'ident', batchSize: '1,8', concurrency: '1,2', ...FAST }, cwd);
    expect(opts.target).toEqual({ kind: 'in-process', repository: repo });
    const report = await runPerf(opts, { io, loadModel: async () => identityLoader });
    expect(report.model).toEqual({ name: 'ident', version: '3' });
    expect(report.rows.map((r) => [r.batchSize, r.concurrency])).toEqual([[1, 1], [1, 2], [8, 1], [8, 2]]);
    for (const r of report.rows) {
      expect(r.server!.executionCount).toBeGreaterThan(0);
      expect(r.server!.inferenceCount).toBe(r.server!.executionCount * r.batchSize);
    }
    expect(io.out()).toContain('best throughput');
  });

  it('names a missing model and a missing version with the fix', async () => {
    const repo = repository();
    const io = memoryIO();
    const run = (flags: Record<string, string>) => runPerf(parsePerfFlags({ modelRepository: repo, ...FAST, ...flags, model: flags.model ?? 'ident' }, '/'), { io, loadModel: async () => identityLoader });
    await expect(run({ model: 'idnet' })).rejects.toThrow(`model "idnet" is not in ${repo}; it has "ident"; check -m`);
    await expect(run({ modelVersion: '2' })).rejects.toThrow(`model "ident" has no version 2 in ${path.join(repo, 'ident')}; it has 1, 3; check --model-version`);
  });
});
