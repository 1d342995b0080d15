/**
 * A perf_analyzer command line runs as it is: gebe perf takes perf_analyzer's short spellings of
 * the flags it acts on (-p, -x, -l), and accepts the flags about what it does differently or does
 * not have (sync/async mode, GPU metrics, binary search), naming them with why on stderr.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli.js';
import { memoryIO } from '../../../src/io.js';
import { parsePerfFlags } from '../../../src/commands/perf/options.js';
import { IGNORED_PERF_ANALYZER_FLAGS } from '../../../src/commands/perf/perf-analyzer-flags.js';
import { startPerfServer } from '../../helpers/perf-server.js';
import { writePerfRepository } from '../../helpers/perf-repository.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

describe("perf_analyzer's command line", () => {
  it('runs against a real server, -p -x -l taken, the rest named on stderr with why', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gebe-pa-flags-'));
    const server = await startPerfServer(writePerfRepository(dir));
    try {
      const io = memoryIO({ cwd: dir });
      const code = await main(['node', 'gebe', 'perf', '-m', 'trivial', '-x', '1', '-u', server.http, '-a', '--max-threads', '4', '-v', '-z',
        '--binary-search', '-l', '50', '--service-kind', 'triton', '--collect-metrics', '--metrics-url', 'localhost:8002/metrics',
        '-p', '100', '-s', '1000', '-r', '3', '--concurrency-range', '1:2', '--client-threads', '0', '--json'], io);
      expect([code, io.err().match(/error.*/)?.[0]]).toEqual([0, undefined]);
      const report = JSON.parse(io.out()) as { model: { version: string }; settings: { measurementIntervalMs: number }; rows: unknown[] };
      expect([report.model.version, report.settings.measurementIntervalMs, report.rows.length]).toEqual(['1', 100, 2]);
      const warning = io.err().split('\n').find((l) => l.startsWith('warning: perf_analyzer flags that gebe perf accepts without effect: '))!;
      for (const f of ['--async', '--max-threads', '-v', '-z', '--binary-search', '--service-kind', '--collect-metrics', '--metrics-url']) {
        const listed = IGNORED_PERF_ANALYZER_FLAGS.find((x) => x.flag === f || x.flag.endsWith(` ${f}`))!;
        expect(warning).toContain(`${f} (${listed.why})`);
      }
    } finally {
      await server.stop();
    }
  });

  it('refuses a --service-kind gebe perf does not measure, and keeps the ignored flags out of --help', async () => {
    expect(() => parsePerfFlags({ model: 'm', url: 'h:1', serviceKind: 'openai' }, '/')).toThrow(
      '--service-kind openai: gebe perf measures a KServe v2 server (triton) with -u, or the model in process with --model-repository');
    const io = memoryIO();
    await main(['node', 'gebe', 'perf', '--help'], io);
    for (const f of ['--async', '--sync', '--max-threads', '--binary-search', '--collect-metrics', '--service-kind']) expect(io.out()).not.toContain(f);
    expect(io.out()).toContain('-p, --measurement-interval');
  });
});
