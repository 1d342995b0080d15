import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli.js';
import { memoryIO } from '../../../src/io.js';
import type { PerfReport } from '../../../src/core/perf/report.js';
import { parsePerfFlags } from '../../../src/commands/perf/options.js';
import { runPerf } from '../../../src/commands/perf/run.js';
import { startPerfServer, type PerfServer } from '../../helpers/perf-server.js';
import { writePerfRepository } from '../../helpers/perf-repository.js';

let server: PerfServer;
const tmp = mkdtempSync(path.join(tmpdir(), 'gebe-perf-cmd-'));

beforeAll(async () => {
  server = await startPerfServer(writePerfRepository(tmp, { broken: true }));
});
afterAll(async () => server?.stop());

/** Short, tolerant measurement settings: tests check counts and wiring, never timing. */
const FAST = ['--measurement-interval', '60', '-s', '1000', '-r', '10', '--client-threads', '0'];

async function perf(...args: string[]) {
  return perfIn(tmp, ...args);
}

async function perfIn(cwd: string, ...args: string[]) {
  const io = memoryIO({ cwd });
  const code = await main(['node', 'gebe', 'perf', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

describe('gebe perf on a model behind the response cache', () => {
  it('reports hits and misses, and perf_analyzer\'s Server Cache Hit / Server Cache Miss columns', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gebe-perf-cache-'));
    const repo = writePerfRepository(dir);
    appendFileSync(path.join(repo, 'trivial', 'config.pbtxt'), '\nresponse_cache { enable: true }\n');
    const cached = await startPerfServer(repo, { responseCacheBytes: 1 << 20 });
    try {
      const csv = path.join(dir, 'out.csv');
      // The same input data in every request (perf_analyzer's): after the first few, every one is a hit.
      const { code, out } = await perfIn(dir, '-m', 'trivial', '-u', cached.http, '--concurrency', '2', '-f', csv, ...FAST);
      expect(code).toBe(0);
      expect(out).toMatch(/batch 1, concurrency 2 {2}\d+ hits, \d+ misses \(\d+% hits\) · a hit [0-9.]+ · a miss's lookup and insertion [0-9.]+/);
      const [header, row] = readFileSync(csv, 'utf8').trim().split('\n');
      expect(header).toContain(',Server Compute Output,Server Cache Hit,Server Cache Miss,Client Recv,');
      expect(row!.split(',')).toHaveLength(header!.split(',').length);
    } finally {
      await cached.stop();
    }
  });
});

describe('gebe perf sweeps', () => {
  it('--concurrency 1:16 yields 16 rows in order', async () => {
    const { code, out, err } = await perf('-m', 'trivial', '-u', server.http, '--concurrency', '1:16', '--json', ...FAST);
    expect(err.trimEnd().split('\n').map((l) => /^\[(\d+)\/16\] batch 1, concurrency (\d+): .* \(stable after \d+ windows?\)$/.exec(l)?.slice(1, 3).join(','))).toEqual(Array.from({ length: 16 }, (_, i) => `${i + 1},${i + 1}`));
    expect(code).toBe(0);
    const report = JSON.parse(out) as PerfReport;
    expect(report.rows.map((r) => r.concurrency)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
  });

  it('-b 1,8 × --concurrency 1,4 yields 4 rows, batch-major, and writes CSV and HTML', async () => {
    const csv = path.join(tmp, 'out.csv');
    const html = path.join(tmp, 'out.html');
    const { code, out } = await perf('-m', 'trivial', '-u', server.http, '-b', '1,8', '--concurrency', '1,4', '-f', csv, '--report', html, ...FAST);
    expect(code).toBe(0);
    const lines = out.split('\n').slice(2, 6).map((l) => l.trim().split(/\s+/).slice(0, 2));
    expect(lines).toEqual([['1', '1'], ['1', '4'], ['8', '1'], ['8', '4']]);
    expect(out).toMatch(/best throughput: batch \d, concurrency \d/);
    const csvLines = readFileSync(csv, 'utf8').trim().split('\n');
    expect(csvLines).toHaveLength(5);
    expect(csvLines[0]!.startsWith('Concurrency,Inferences/Second,Client Send,')).toBe(true);
    expect(readFileSync(html, 'utf8')).toContain('<svg');
  });

  it('runs load on worker threads and at a fixed request rate', async () => {
    const { code, out } = await perf('-m', 'trivial', '-u', server.http, '--request-rate-range', '200', '--json',
      '--measurement-mode', 'count_windows', '--measurement-request-count', '20', '-s', '1000', '-r', '3', '--client-threads', '2');
    expect(code).toBe(0);
    const report = JSON.parse(out) as PerfReport;
    expect(report.load).toBe('request-rate');
    expect(report.clientThreads).toBe(2);
    expect(report.rows).toHaveLength(1);
    expect(report.rows[0]!.requestRate).toBe(200);
  });
});

/** The profile export as JSON reads it (its nanosecond timestamps rounded to doubles: fine for order and counts). */
interface ProfileFile {
  experiments: Array<{ experiment: { mode: string; value: number; batch_size: number }; requests: Array<{ timestamp: number; sequence_id?: number; response_timestamps: number[] }>; window_boundaries: number[] }>;
  version: string;
  service_kind: string;
}

/** Runs perf with --profile-export-file and counts each setting's measured requests from the generator's windows. */
async function perfWithProfile(flags: Parameters<typeof parsePerfFlags>[0], file: string): Promise<{ profile: ProfileFile; measured: Map<string, number> }> {
  const measured = new Map<string, number>();
  const opts = parsePerfFlags({ ...flags, profileExportFile: file }, tmp);
  await runPerf(opts, {
    io: memoryIO({ cwd: tmp }),
    observe: (g) => g.on('window', ({ setting, measurement }) => {
      const key = `${setting.batchSize}/${setting.concurrency}`;
      measured.set(key, (measured.get(key) ?? 0) + measurement.requests);
    }),
  });
  return { profile: JSON.parse(readFileSync(file, 'utf8')) as ProfileFile, measured };
}

describe('gebe perf --profile-export-file', () => {
  const COUNT_WINDOWS = { measurementMode: 'count_windows', measurementRequestCount: '20', stabilityPercentage: '1000', maxTrials: '3' };

  it("writes every measured request of every window in perf_analyzer's layout, from worker threads and in process", async () => {
    const remote = await perfWithProfile({ model: 'trivial', url: server.http, concurrency: '1,3', batchSize: '1,2', clientThreads: '2', ...COUNT_WINDOWS }, path.join(tmp, 'remote.json'));
    const local = await perfWithProfile({ model: 'trivial', modelRepository: path.join(tmp, 'model_repository'), concurrency: '2', clientThreads: '0', ...COUNT_WINDOWS }, path.join(tmp, 'local.json'));
    expect([remote.profile.service_kind, local.profile.service_kind]).toEqual(['triton', 'triton_c_api']);
    expect(remote.profile.version).toMatch(/^\d+\.\d+\.\d+/);
    for (const { profile, measured } of [remote, local]) {
      expect(profile.experiments.map((e) => `${e.experiment.batch_size}/${e.experiment.value}`)).toEqual([...measured.keys()]);
      for (const e of profile.experiments) {
        expect(e.experiment.mode).toBe('concurrency');
        // Each window's requests, all of them (count windows of at least 20), and its bounds.
        expect(e.requests.length).toBe(measured.get(`${e.experiment.batch_size}/${e.experiment.value}`));
        expect(e.requests.length).toBeGreaterThanOrEqual(60);
        expect(e.window_boundaries).toHaveLength(4);
        const [first, last] = [e.window_boundaries[0]!, e.window_boundaries[3]!];
        for (const r of e.requests) {
          expect(r.response_timestamps).toHaveLength(1);
          expect(r.response_timestamps[0]!).toBeGreaterThanOrEqual(r.timestamp);
          // A driver's window closes when it hears of it, a little after the window's end.
          expect(r.response_timestamps[0]!).toBeGreaterThan(first - 1e9);
          expect(r.response_timestamps[0]!).toBeLessThan(last + 1e9);
          expect(r.sequence_id).toBeUndefined();
        }
      }
    }
  });

  it('names the file it cannot write', async () => {
    const blocker = path.join(tmp, 'not-a-dir');
    writeFileSync(blocker, '');
    const { code, err } = await perf('-m', 'trivial', '-u', server.http, '--profile-export-file', path.join(blocker, 'p.json'), ...FAST);
    expect(code).toBe(2);
    expect(err).toContain(`cannot write the profile export to ${path.join(blocker, 'p.json')} (`);
  });
});

describe('target choice', () => {
  it('runs in process from ./model_repository, and asks for a target when there is none', async () => {
    const inProcess = await perf('-m', 'trivial', '--json', ...FAST);
    expect(inProcess.code).toBe(0);
    expect((JSON.parse(inProcess.out) as PerfReport).target).toMatch(/^in process \(cpu engine/);
    const empty = mkdtempSync(path.join(tmpdir(), 'gebe-perf-empty-'));
    const none = await perfIn(empty, '-m', 'trivial', ...FAST);
    expect(none.code).toBe(2);
    expect(none.err).toBe('error: no target: pass -u host:port for a running KServe v2 server, or --model-repository <dir> to run the model in process\n');
  });
});

describe('a sweep that fails part-way', () => {
  it('still reports the settings measured before the failure, then fails with its error', async () => {
    const own = await startPerfServer(writePerfRepository(mkdtempSync(path.join(tmpdir(), 'gebe-perf-partial-'))));
    const io = memoryIO({ cwd: tmp });
    const opts = parsePerfFlags({ model: 'trivial', url: own.http, concurrency: '1,2', measurementInterval: '60', stabilityPercentage: '1000', maxTrials: '10', clientThreads: '0' }, tmp);
    // The server goes away as soon as the first level is measured.
    const run = runPerf(opts, { io, observe: (g) => g.once('result', () => void own.stop()) });
    await expect(run).rejects.toThrow(/server at http:\/\/127\.0\.0\.1:\d+|cannot reach a KServe v2 server/);
    const lines = io.out().split('\n');
    expect(lines.slice(2, 3).map((l) => l.trim().split(/\s+/).slice(0, 2))).toEqual([['1', '1']]);
    expect(io.out()).toContain('incomplete: the sweep stopped after 1 setting (the error follows)');
  });
});

describe('stability', () => {
  it('marks a setting whose windows never agree within -s, names the flags to change, and goes on', async () => {
    // 0.001%: three windows of a real server never agree that closely.
    const csv = path.join(tmp, 'unstable.csv');
    const { code, err, out } = await perf('-m', 'trivial', '-u', server.http, '--concurrency', '1,2', '-f', csv, '--measurement-mode', 'count_windows', '--measurement-request-count', '20', '-s', '0.001', '-r', '3', '--client-threads', '0');
    expect(code).toBe(0);
    const note = 'did not stabilise within 3 windows \\(last 3: throughput varied [\\d.]+%, latency [\\d.]+%, allowed 0.001%\\)';
    expect(out).toMatch(new RegExp(`^unstable batch 1, concurrency 1: ${note}$`, 'm'));
    expect(out).toMatch(/^unstable batch 1, concurrency 2: /m);
    expect(out).toContain('unstable rows show their last windows; for stable figures raise --measurement-request-count (now 20), -s/--stability-percentage or -r/--max-trials (now 3)\n');
    expect(out.split('\n').slice(2, 4).map((l) => l.trim().split(/\s+/).at(-1))).toEqual(['unstable', 'unstable']);
    // One progress line per finished setting on a stderr that is not a terminal.
    expect(err).toMatch(new RegExp(`^\\[1/2\\] batch 1, concurrency 1: [\\d.]+ infer/s, avg [\\d.]+ ms, p99 [\\d.]+ ms \\(unstable: ${note}\\)\n\\[2/2\\] batch 1, concurrency 2: `));
    const rows = readFileSync(csv, 'utf8').trim().split('\n');
    expect(rows[0]!.endsWith(',p99 latency,Status')).toBe(true);
    expect(rows.slice(1).map((r) => r.split(',').at(-1))).toEqual(['unstable', 'unstable']);
  });
});

describe('gebe perf over gRPC', () => {
  it('sweeps batch × concurrency with the server-side breakdown', async () => {
    const { code, out, err } = await perf('-m', 'trivial', '-u', server.grpc, '-i', 'grpc', '-b', '1,8', '--concurrency', '1,2', '--json', ...FAST);
    expect(err).not.toMatch(/error|failed|unstable/);
    expect(code).toBe(0);
    const report = JSON.parse(out) as PerfReport;
    expect(report.target).toBe(`${server.grpc} (gRPC)`);
    expect(report.rows.map((r) => [r.batchSize, r.concurrency])).toEqual([[1, 1], [1, 2], [8, 1], [8, 2]]);
    for (const r of report.rows) {
      expect(r.server!.executionCount).toBeGreaterThan(0);
      expect(r.server!.inferenceCount).toBe(r.server!.executionCount * r.batchSize);
    }
  });

  it('--shared-memory system puts the tensors in a registered region, over HTTP (worker threads) and gRPC, and removes it after', async () => {
    const before = readdirSync('/dev/shm').filter((f) => f.startsWith(`perf-${process.pid}-`));
    for (const [protocol, address] of [['http', server.http], ['grpc', server.grpc]] as const) {
      const { code, out, err } = await perf('-m', 'trivial', '-u', address, '-i', protocol, '-b', '1,8', '--concurrency', '1,2', '--shared-memory', 'system', '--json', ...FAST, '--client-threads', '1');
      expect([code, err.match(/error.*/)?.[0]]).toEqual([0, undefined]);
      const report = JSON.parse(out) as PerfReport;
      expect(report.target).toBe(`${protocol === 'http' ? 'http://' : ''}${address} (${protocol === 'http' ? 'HTTP' : 'gRPC'}, system shared memory)`);
      for (const r of report.rows) expect(r.server!.inferenceCount).toBe(r.server!.executionCount * r.batchSize);
    }
    // Every region unregistered, every object removed.
    const status = await fetch(`http://${server.http}/v2/systemsharedmemory/status`).then((r) => r.json());
    expect([status, readdirSync('/dev/shm').filter((f) => f.startsWith(`perf-${process.pid}-`))]).toEqual([[], before]);
    expect((await perf('-m', 'trivial', '--shared-memory', 'system', ...FAST)).err).toMatch(/--shared-memory is how tensors reach a server: add -u host:port/);
    expect((await perf('-m', 'trivial', '-u', server.http, '--shared-memory', 'cuda', ...FAST)).err).toMatch(/--shared-memory cuda needs a GPU/);
  });

  it('--trace-level/--trace-rate/--trace-count/--log-frequency trace the model on the server for the run, over HTTP and gRPC, and undo it after', async () => {
    const file = path.join(tmp, 'trace.json');
    const tracing = await startPerfServer(writePerfRepository(mkdtempSync(path.join(tmp, 'traced-')), {}), { trace: { file, setting: { timestamps: false, rate: 1000, count: -1, logFrequency: 0 } } });
    try {
      for (const [protocol, address, index] of [['http', tracing.http, 0], ['grpc', tracing.grpc, 1]] as const) {
        const { code, err } = await perf('-m', 'trivial', '-u', address, '-i', protocol, '--trace-level', 'TIMESTAMPS', '--trace-rate', '1', '--trace-count', '3',
          '--log-frequency', '3', '--concurrency', '1', ...FAST);
        expect([code, err.split('\n')[0]]).toEqual([0, `tracing 'trivial' on the server: level TIMESTAMPS, rate 1, count 3, log_frequency 3; traces go to ${file} on the server`]);
        // Three traces of trivial make a complete numbered file; afterwards the model follows the global setting again.
        for (let i = 0; i < 60 && !(existsSync(`${file}.${index}`) && readFileSync(`${file}.${index}`, 'utf8').endsWith(']\n')); i++) await new Promise((r) => setTimeout(r, 50));
        const ids = new Set((JSON.parse(readFileSync(`${file}.${index}`, 'utf8')) as Array<{ id: number; model_name?: string }>).map((e) => e.id));
        expect(ids.size).toBe(3);
        const after = await fetch(`http://${tracing.http}/v2/models/trivial/trace/setting`).then((r) => r.json());
        expect(after).toMatchObject({ trace_level: ['OFF'], trace_rate: '1000', trace_count: '-1', log_frequency: '0' });
      }
      // A server that does not trace refuses, and the run ends saying so.
      const refused = await perf('-m', 'trivial', '-u', server.http, '--trace-level', 'TIMESTAMPS', ...FAST);
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(/^error: the server at http:\/\/127\.0\.0\.1:\d+ refused the trace settings: the server does not support tracing\n/);
      expect((await perf('-m', 'trivial', '--trace-level', 'TIMESTAMPS', ...FAST)).err).toMatch(/set a server's trace settings: add -u host:port/);
      expect((await perf('-m', 'trivial', '-u', server.http, '--trace-level', 'ALL', ...FAST)).err).toMatch(/--trace-level "ALL" is not one of OFF, TIMESTAMPS, TENSORS/);
    } finally {
      await tracing.stop();
    }
  });

  it('names an unknown model and an unreachable server in one line', async () => {
    const unknown = await perf('-m', 'nope', '-u', server.grpc, '-i', 'grpc', ...FAST);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/^error: model "nope" is not on the server at grpc:\/\/127\.0\.0\.1:\d+ \(.*\); the server has "dynamic", "trivial"; check -m\/--model-version\n$/);
    const gone = await perf('-m', 'trivial', '-u', `127.0.0.1:${await freePort()}`, '-i', 'grpc', ...FAST);
    expect(gone.code).toBe(2);
    expect(gone.err).toMatch(/^error: cannot reach a KServe v2 gRPC server at 127\.0\.0\.1:\d+ .*\n$/);
  });
});

describe('gebe perf: gRPC refusals read as HTTP ones do', () => {
  // The server answers UNAVAILABLE over gRPC for a model that is not ready, which is not an unreachable server.
  for (const [name, model] of [['a model that is not ready', 'broken'], ['an unknown model', 'nope']] as const) {
    it(name, async () => {
      const overHttp = await perf('-m', model, '-u', server.http, ...FAST);
      const overGrpc = await perf('-m', model, '-u', server.grpc, '-i', 'grpc', ...FAST);
      expect(overGrpc.code).toBe(2);
      const shape = (err: string) => err.replace(/(http|grpc):\/\/127\.0\.0\.1:\d+/g, '<server>');
      expect(shape(overGrpc.err)).toBe(shape(overHttp.err));
      expect(overGrpc.err).not.toMatch(/cannot reach/);
    });
  }
});

describe('gebe perf bad input: one-line errors, exit 2', () => {
  const cases: Array<[string, () => Promise<string[]>, RegExp]> = [
    ['a descending range', async () => ['-m', 'trivial', '-u', server.http, '--concurrency', '16:1'], /write 1:16$/],
    ['a zero range start', async () => ['-m', 'trivial', '-u', server.http, '--concurrency', '0:4'], /use 1:4$/],
    ['a non-numeric range', async () => ['-m', 'trivial', '-u', server.http, '--concurrency', 'a:b'], /"a" is not a whole number/],
    ['an unreachable server', async () => ['-m', 'trivial', '-u', `127.0.0.1:${await freePort()}`], /cannot reach a KServe v2 server at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); start one with `gebe serve/],
    ['an unknown model', async () => ['-m', 'nope', '-u', server.http], /model "nope" is not on the server .*; the server has "dynamic", "trivial"; check -m/],
    ['a model that is not ready', async () => ['-m', 'broken', '-u', server.http], /^error: model "broken" is not ready on .*; fix what the server reports/],
    ['a batch above max_batch_size', async () => ['-m', 'trivial', '-u', server.http, '-b', '1,16'], /-b 16: batch size is above max_batch_size 8 of model "trivial"; use -b 8 or less/],
    ['a missing --shape', async () => ['-m', 'dynamic', '-u', server.http], /model "dynamic" has dynamic dims in INPUT0 \[-1\]; pass the shape to send for each, e.g. --shape INPUT0:1$/],
    ['an input-data file with a wrong name', async () => {
      const file = path.join(tmp, 'bad.json');
      writeFileSync(file, JSON.stringify({ data: [{ INPUT1: [1, 2, 3, 4] }] }));
      return ['-m', 'trivial', '-u', server.http, '--input-data', file];
    }, /data\[0\] names input "INPUT1", which model "trivial" does not have/],
    ['no model', async () => ['-u', server.http], /-m\/--model is required/],
    ['gRPC\'s TLS flag for an HTTP server', async () => ['-m', 'trivial', '-u', server.http, '--ssl-grpc-use-ssl'], /--ssl-grpc-use-ssl is for gRPC \(-i grpc\); HTTP over TLS is an https:\/\/ URL/],
  ];
  for (const [name, args, expected] of cases) {
    it(name, async () => {
      const { code, err, out } = await perf(...(await args()), ...FAST);
      expect(code).toBe(2);
      expect(out).toBe('');
      expect(err.trimEnd().split('\n')).toHaveLength(1);
      expect(err.trimEnd()).toMatch(/^error: /);
      expect(err.trimEnd()).toMatch(expected);
    });
  }
});
