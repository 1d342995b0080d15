import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../../src/io.js';
import { parsePerfFlags } from '../../../src/commands/perf/options.js';
import { runPerf } from '../../../src/commands/perf/run.js';
import { writePerfRepository } from '../../helpers/perf-repository.js';

const FAST = { measurementInterval: '150', stabilityPercentage: '1000', maxTrials: '6' };

describe('gebe perf in process (native executor, real ONNX model)', () => {
  it('loads the model from ./model_repository and counts batch × requests, as the model statistics do', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'gebe-perf-inproc-'));
    const repo = writePerfRepository(cwd);
    const io = memoryIO({ cwd });
    const opts = parsePerfFlags({ model: 'trivial', batchSize: '1,8', concurrency: '1,2', ...FAST }, cwd);
    expect(opts.target).toEqual({ kind: 'in-process', repository: repo });
    const report = await runPerf(opts, { io });
    expect(report.model).toEqual({ name: 'trivial', version: '1' });
    expect(report.target).toMatch(/^in process \(cpu engine, /);
    expect(report.rows.map((r) => [r.batchSize, r.concurrency])).toEqual([[1, 1], [1, 2], [8, 1], [8, 2]]);
    for (const r of report.rows) {
      expect(r.server!.executionCount).toBeGreaterThan(0);
      expect(r.server!.inferenceCount).toBe(r.server!.executionCount * r.batchSize);
      // In process, the window and the statistics delta cover the same completions exactly.
      expect(r.throughput).toBeCloseTo(r.requestsPerSecond * r.batchSize, 6);
    }
    expect(io.out()).toContain('best throughput');
  });

  it('names a missing model, a missing version and a missing --shape with the fix', async () => {
    const repo = writePerfRepository(mkdtempSync(path.join(tmpdir(), 'gebe-perf-inproc-')));
    const io = memoryIO();
    const run = (flags: Record<string, string>) => runPerf(parsePerfFlags({ modelRepository: repo, ...FAST, model: 'trivial', ...flags }, '/'), { io });
    await expect(run({ model: 'trivail' })).rejects.toThrow(`model "trivail" is not in ${repo}; it has "dynamic", "trivial"; check -m`);
    await expect(run({ modelVersion: '2' })).rejects.toThrow(`model "trivial" has no version 2 in ${path.join(repo, 'trivial')}; it has 1; check --model-version`);
    await expect(run({ model: 'dynamic' })).rejects.toThrow('model "dynamic" has dynamic dims in INPUT0 [-1]; pass the shape to send for each, e.g. --shape INPUT0:1');
  });
});

describe('live progress', () => {
  /** A stand-in terminal: what ora needs from a TTY stream, collecting what it writes. */
  function terminal() {
    let text = '';
    return {
      isTTY: true, columns: 120,
      write: (chunk: string) => { text += chunk; return true; },
      cursorTo: () => true, moveCursor: () => true, clearLine: () => true,
      text: () => text,
    };
  }

  it('shows the current setting on stderr when it is a terminal, and nothing with --json', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'gebe-perf-progress-'));
    writePerfRepository(cwd);
    const tty = terminal();
    const io = memoryIO({ cwd, stderr: tty, stderrIsTTY: true });
    await runPerf(parsePerfFlags({ model: 'trivial', concurrency: '2', ...FAST }, cwd), { io });
    expect(tty.text()).toContain('[1/1] batch 1, concurrency 2');
    expect(io.out()).toContain('best throughput');

    const quiet = terminal();
    const jsonIO = memoryIO({ cwd, stderr: quiet, stderrIsTTY: true });
    await runPerf(parsePerfFlags({ model: 'trivial', concurrency: '2', json: true, ...FAST }, cwd), { io: jsonIO });
    expect(quiet.text()).toBe('');
    expect(JSON.parse(jsonIO.out()).rows).toHaveLength(1);
  });
});
