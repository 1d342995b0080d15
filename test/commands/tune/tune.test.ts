/**
 * gebe tune end to end on the mnist template in process. Trials are short (200 ms windows, one
 * concurrency level) because the test machine is small; what is checked are ratios measured in
 * the same run, never absolute times.
 */
import { parseRestrictions } from '../../../src/core/server/restricted-api.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/core/config/index.js';
import type { TuneReport } from '../../../src/core/tune/report.js';
import { loadModel } from '../../../src/core/executor/index.js';
import { DiskModelSource } from '../../../src/core/server/disk-source.js';
import { silentLogger } from '../../../src/core/server/logger.js';
import { ModelManager, type ControlMode } from '../../../src/core/server/model-manager.js';
import { GebeServer } from '../../../src/core/server/server.js';
import { runGebe } from '../../helpers/gebe-cli.js';
import { TEMPLATES_DIR } from '../../../src/commands/init/templates.js';

let tmp: string;
const gebe = (args: string[]) => runGebe(args, { cwd: tmp });
// A loose stability rule: the machine is shared, and a trial that never stabilises proves nothing here.
const SHORT = ['--concurrency', '1', '--measurement-interval', '200', '-s', '50', '-r', '30', '--max-instance-count', '2', '--max-queue-delays', '0,500'];
const configFile = () => path.join(tmp, 'model_repository', 'mnist', 'config.pbtxt');

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-tune-'));
  expect((await gebe(['init', 'mnist', '--yes'])).code).toBe(0);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('gebe tune on the mnist template', () => {
  let report: TuneReport;

  it('finds a config that beats the template under a generous budget, and resumes from its checkpoint', async () => {
    const r = await gebe(['tune', '-m', 'mnist', ...SHORT, '--latency-budget', 'p99=1s', '--json', '--report', 'tune.html', '--checkpoint', 'ck.json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    report = JSON.parse(r.out) as TuneReport;
    const baseline = report.baseline[0]!;
    // The template waits up to 100 µs to fill a preferred batch; one request at a time never fills one.
    expect(baseline.candidate).toMatchObject({ instanceCount: 2, batching: { preferredBatchSizes: [4, 8, 16], maxQueueDelayUs: 100 } });
    expect(report.winner).toBeDefined();
    expect(report.winner!.key).not.toBe(baseline.key);
    expect(report.speedup).toBeCloseTo(report.winner!.throughput / baseline.throughput, 9);
    expect(report.speedup).toBeGreaterThan(1.2);
    expect(report.pareto).toContain(report.winner!.key);
    expect(report.resumed).toBe(0);
    const html = fs.readFileSync(path.join(tmp, 'tune.html'), 'utf8');
    expect(html).toContain('Pareto front');
    expect(html).toContain('<svg');
    // The same search again: every trial comes back from the checkpoint, none is measured anew.
    const again = JSON.parse((await gebe(['tune', '-m', 'mnist', ...SHORT, '--latency-budget', 'p99=1s', '--json', '--checkpoint', 'ck.json'])).out) as TuneReport;
    // (A trial that did not stabilise on the loaded machine is measured again: only measured ones resume.)
    const measuredTrials = (t: TuneReport) => t.trials.filter((x) => x.error === undefined);
    expect(again.resumed).toBe(measuredTrials(report).length);
    for (const t of measuredTrials(report)) expect(again.trials).toContainEqual(t);
  });

  it('reports that nothing qualifies under an impossible budget (exit 1), with the closest trial', async () => {
    const r = await gebe(['tune', '-m', 'mnist', ...SHORT, '--latency-budget', 'p99=1us', '--checkpoint', 'ck.json']);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/no trial meets the constraints \(p99 ≤ 0\.001 ms\); closest: \d+ instances?, .*, p99 [\d.]+ ms\n/);
    const report = JSON.parse((await gebe(['tune', '-m', 'mnist', ...SHORT, '--latency-budget', 'p99=1us', '--checkpoint', 'ck.json', '--json'])).out) as TuneReport;
    expect(report.winner).toBeUndefined();
    const lowest = Math.min(...report.trials.filter((t) => t.error === undefined).map((t) => t.latencyUs.p99));
    expect(report.closest!.latencyUs.p99).toBe(lowest);
  });

  it('--write puts the winner into config.pbtxt: comments kept, valid, and measured as the new baseline', async () => {
    const before = fs.readFileSync(configFile(), 'utf8');
    const r = await gebe(['tune', '-m', 'mnist', ...SHORT, '--write', '--json', '--checkpoint', 'ck.json']);
    expect(r.code).toBe(0);
    const written = JSON.parse(r.out) as TuneReport;
    expect(written.written).toBe(configFile());
    const after = fs.readFileSync(configFile(), 'utf8');
    for (const line of before.split('\n').filter((l) => l.startsWith('#'))) expect(after).toContain(line);
    const parsed = parseModelConfig(after, configFile());
    expect(parsed.diagnostics).toEqual([]);
    expect((await gebe(['validate', path.join('model_repository', 'mnist')])).code).toBe(0);
    // The written config is now what the next run measures as its baseline.
    const next = JSON.parse((await gebe(['tune', '-m', 'mnist', ...SHORT, '--json', '--checkpoint', 'ck.json', '--trial-limit', '1'])).out) as TuneReport;
    expect(next.resumed).toBe(0);
    expect(next.baseline[0]!.key).toBe(written.winner!.key);
  });

  it('refuses bad flags with the fix (exit 2)', async () => {
    const budget = await gebe(['tune', '-m', 'mnist', '--latency-budget', 'p99<5']);
    expect(budget.code).toBe(2);
    expect(budget.err).toContain('--latency-budget "p99<5" is not <metric>=<time>');
    const objective = await gebe(['tune', '-m', 'mnist', '--objective', 'fastest']);
    expect(objective.err).toContain('--objective "fastest" is not one of throughput, latency, weighted');
  });
});

describe('gebe tune against a server', () => {
  // Every API tune calls wants a header (--http-restricted-api): -H carries it to each request.
  const TOKEN = { 'x-token': 's3cret' };
  const restrictions = parseRestrictions(['health,metadata,inference,model-config,model-repository,statistics:x-token=s3cret'], '--http-restricted-api');
  async function serve(mode: ControlMode): Promise<{ server: GebeServer; url: string }> {
    const manager = new ModelManager(new DiskModelSource(path.join(tmp, 'model_repository')), loadModel, silentLogger, mode);
    await manager.start(['mnist']);
    const server = new GebeServer(manager, { host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, maxBodyBytes: 1 << 20, httpRestrictions: restrictions }, silentLogger);
    const ports = await server.listen();
    return { server, url: `http://127.0.0.1:${ports.http}` };
  }

  it('reloads the model per trial through the model-control API, and restores its config after', async () => {
    const { server, url } = await serve('explicit');
    try {
      const before = await (await fetch(`${url}/v2/models/mnist/config`, { headers: TOKEN })).json() as { instance_group: Array<{ count: number }> };
      const r = await gebe(['tune', '-m', 'mnist', '-u', url, '-H', 'X-Token: s3cret', ...SHORT, '--trial-limit', '3', '--client-threads', '0', '--json', '--checkpoint', 'remote.json']);
      expect(r.err).toBe('');
      const report = JSON.parse(r.out) as TuneReport;
      expect(report.target).toContain('reloaded per trial');
      expect(report.trials).toHaveLength(3);
      expect(report.trials.some((t) => t.error === undefined && t.throughput > 0)).toBe(true);
      // Trials ran different instance counts on the server; the config it had is back.
      expect(new Set(report.trials.map((t) => t.candidate.instanceCount)).size).toBeGreaterThan(1);
      const after = await (await fetch(`${url}/v2/models/mnist/config`, { headers: TOKEN })).json() as { instance_group: Array<{ count: number }> };
      expect(after.instance_group[0]!.count).toBe(before.instance_group[0]!.count);
    } finally {
      await server.stop(2000);
    }
  });

  it('says to use explicit model control when the server refuses to reload (exit 2)', async () => {
    const { server, url } = await serve('none');
    try {
      const r = await gebe(['tune', '-m', 'mnist', '-u', url, '-H', 'X-Token: s3cret', ...SHORT, '--checkpoint', 'refused.json']);
      expect(r.code).toBe(2);
      expect(r.err).toContain('--model-control-mode explicit');
    } finally {
      await server.stop(2000);
    }
  });
});

describe('gebe tune of a model with gears', () => {
  // Gears reach tune as the loaded model's gears: compiled into a .om, or (here, on the cpu engine)
  // from graph.ge.dynamicDims. The fake AscendCL's .om files are not real OM files, which the
  // repository checks in front of in-process runs refuse, so the gear path is exercised this way.
  beforeAll(() => {
    const dir = path.join(tmp, 'model_repository', 'geared');
    // From the template itself: the mnist model above may have been rewritten by --write.
    const template = path.join(TEMPLATES_DIR, 'mnist');
    fs.mkdirSync(path.join(dir, '1'), { recursive: true });
    fs.copyFileSync(path.join(template, '1', 'model.onnx'), path.join(dir, '1', 'model.onnx'));
    fs.copyFileSync(path.join(template, 'labels.txt'), path.join(dir, 'labels.txt'));
    const text = fs.readFileSync(path.join(template, 'config.pbtxt'), 'utf8').replace('name: "mnist"', 'name: "geared"');
    fs.writeFileSync(path.join(dir, 'config.pbtxt'), `${text}parameters { key: "graph.ge.inputShape" value: { string_value: "image:-1,1,28,28" } }\n` +
      'parameters { key: "graph.ge.dynamicDims" value: { string_value: "2;4;16" } }\n');
  });

  it('draws preferred batch sizes from the gears', async () => {
    const r = await gebe(['tune', '-m', 'geared', ...SHORT, '--max-instance-count', '1', '--max-queue-delays', '0', '--exhaustive', '--json', '--checkpoint', 'geared.json']);
    expect(r.err).toBe('');
    const report = JSON.parse(r.out) as TuneReport;
    const preferred = report.trials.slice(report.baseline.length).map((t) => t.candidate.batching?.preferredBatchSizes.join(',') ?? 'off');
    expect(preferred).toEqual(['off', '', '4,16', '16']);
  });
});
