/**
 * perf_analyzer's --request-intervals, --request-parameter, --string-length and --string-data
 * against real servers on port 0: what reaches the model (its requests' parameters and BYTES
 * elements, seen by the model the server runs), and what the reports say. Counts and contents,
 * never timing.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli.js';
import { memoryIO } from '../../../src/io.js';
import type { InferRequest } from '../../../src/core/executor/types.js';
import type { PerfReport } from '../../../src/core/perf/report.js';
import { parsePerfFlags } from '../../../src/commands/perf/options.js';
import { runPerf } from '../../../src/commands/perf/run.js';
import { executorLoader } from '../../../src/commands/perf/executor-loader.js';
import type { LoadModelFn } from '../../../src/core/perf/in-process-target.js';
import { splitBytesElements } from '../../../src/core/kserve/codec/bytes-elements.js';
import { startTestServer, type TestServer } from '../../core/server/helpers/test-server.js';
import { startPerfServer, type PerfServer } from '../../helpers/perf-server.js';
import { writePerfRepository } from '../../helpers/perf-repository.js';

/** Short, tolerant measurement settings: tests check counts and wiring, never timing. */
const FAST = ['-p', '60', '-s', '1000', '-r', '3'];
const tmp = mkdtempSync(path.join(tmpdir(), 'gebe-perf-load-options-'));

async function perf(...args: string[]) {
  const io = memoryIO({ cwd: tmp });
  const code = await main(['node', 'gebe', 'perf', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

/** What a request of the model carried: its parameters and its BYTES input's elements. */
interface Seen { parameters?: InferRequest['parameters']; strings: string[] }

function strings(request: InferRequest): string[] {
  return splitBytesElements(request.inputs[0]!.data).map((e) => Buffer.from(e).toString());
}

describe('--request-parameter, --string-length and --string-data reach the model through a server', () => {
  let server: TestServer;
  const seen: Seen[] = [];
  beforeAll(async () => {
    server = await startTestServer();
    // id_bytes: a BYTES identity model (max_batch_size 0, dims [-1]); it notes each request it gets.
    const model = server.models.get('id_bytes/1')!;
    const infer = model.infer.bind(model);
    model.infer = (request) => {
      seen.push({ ...(request.parameters ? { parameters: request.parameters } : {}), strings: strings(request) });
      return infer(request);
    };
  });
  afterAll(async () => server?.stop());

  const parameterFlags = ['--request-parameter', 'mode:fast:lane:string', '--request-parameter', 'max_tokens:256:int', '--request-parameter', 'stream:false:bool'];

  const given = { mode: 'fast:lane', max_tokens: 256, stream: false };
  it.each([
    ['HTTP, binary tensors', ['--input-data', 'random', '--string-length', '16'], 'http', given],
    ['HTTP, JSON tensors', ['--input-data', 'random', '--string-length', '16', '--input-tensor-format', 'json'], 'http', given],
    ['gRPC', ['--input-data', 'random', '--string-length', '16'], 'grpc', given],
    // On a stream perf asks for the final flag with a parameter of its own, which the server hands on too.
    ['gRPC streaming', ['--input-data', 'random', '--string-length', '16', '--streaming'], 'grpc', { ...given, triton_enable_empty_final_response: true }],
  ] as const)('%s: every request carries the parameters, and random strings of --string-length', async (_name, flags, protocol, parameters) => {
    seen.length = 0;
    const url = protocol === 'http' ? server.http : server.grpc;
    const { code, err } = await perf('-m', 'id_bytes', '-u', url, '-i', protocol, '--shape', 'IN:3', ...parameterFlags, ...flags, ...FAST, '--client-threads', '1', '--json');
    expect([code, err.match(/error.*/)?.[0]]).toEqual([0, undefined]);
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) {
      expect(s.parameters).toEqual(parameters);
      expect(s.strings.map((x) => x.length)).toEqual([16, 16, 16]);
      expect(s.strings.every((x) => /^[0-9A-Za-z]+$/.test(x))).toBe(true);
    }
  });

  it('sends --string-data as every element, and no parameters without --request-parameter', async () => {
    seen.length = 0;
    const { code } = await perf('-m', 'id_bytes', '-u', server.grpc, '-i', 'grpc', '--shape', 'IN:2', '--string-data', 'héllo', ...FAST, '--client-threads', '0', '--json');
    expect(code).toBe(0);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => s.parameters === undefined && s.strings.join('|') === 'héllo|héllo')).toBe(true);
  });

  it('sends empty strings for zero data, naming --string-length as without effect there', async () => {
    seen.length = 0;
    const { code, err } = await perf('-m', 'id_bytes', '-u', server.http, '--shape', 'IN:2', '--string-length', '16', ...FAST, '--client-threads', '0', '--json');
    expect(code).toBe(0);
    expect(err).toContain("--string-length (gebe perf's zero data sends empty strings: add --input-data random for random strings of this length)");
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => s.strings.join('|') === '|')).toBe(true);
  });
});

describe('--request-parameter in process', () => {
  it("reaches the executor's requests as InferRequest.parameters", async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'gebe-perf-params-inproc-'));
    writePerfRepository(cwd);
    const parameters: Array<InferRequest['parameters']> = [];
    // The real executor's model, noting the parameters of each request it is given.
    const loadModel = async (): Promise<LoadModelFn> => {
      const load = await executorLoader();
      return async (dir, version, config) => {
        const model = await load(dir, version, config);
        const infer = model.infer.bind(model);
        model.infer = (request) => { parameters.push(request.parameters); return infer(request); };
        return model;
      };
    };
    const opts = parsePerfFlags({ model: 'trivial', requestParameter: ['tag:run-7:string', 'n:3:int'], measurementInterval: '60', stabilityPercentage: '1000', maxTrials: '3' }, cwd);
    const report = await runPerf(opts, { io: memoryIO({ cwd }), loadModel });
    expect(report.rows).toHaveLength(1);
    expect(parameters.length).toBeGreaterThan(0);
    expect(parameters.every((p) => p?.tag === 'run-7' && p.n === 3 && Object.keys(p).length === 2)).toBe(true);
  });
});

describe('--request-intervals', () => {
  let server: PerfServer;
  beforeAll(async () => {
    server = await startPerfServer(writePerfRepository(tmp));
  });
  afterAll(async () => server?.stop());

  it("measures one setting per batch size on the file's gaps, reported and written as perf_analyzer's Request Rate", async () => {
    const intervals = path.join(tmp, 'intervals.txt');
    writeFileSync(intervals, '1000\n3000\n');
    const csv = path.join(tmp, 'intervals.csv');
    const { code, out, err } = await perf('-m', 'trivial', '-u', server.http, '--request-intervals', intervals, '-b', '1,2', '-f', csv, ...FAST, '--client-threads', '2');
    expect([code, err.match(/error.*/)?.[0]]).toEqual([0, undefined]);
    // 2 intervals making 1000 + 3000 µs: 500 req/s.
    expect(err).toMatch(/\[1\/2\] batch 1, 500 req\/s: /);
    expect(err).toMatch(/\[2\/2\] batch 2, 500 req\/s: /);
    expect(out).toContain(`req/s = the rate the 2 intervals of ${intervals} make (sent with those gaps, cycled)`);
    const lines = readFileSync(csv, 'utf8').trim().split('\n');
    expect(lines[0]!.startsWith('Request Rate,Inferences/Second,')).toBe(true);
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['500', '500']);
  });

  it('runs in process and over gRPC, the server counting the requests sent, and reports it in --json', async () => {
    const intervals = path.join(tmp, 'gaps.txt');
    writeFileSync(intervals, '0\n2000\n');
    for (const target of [['-u', server.grpc, '-i', 'grpc', '--client-threads', '1'], ['--model-repository', path.join(tmp, 'model_repository')]]) {
      const { code, out } = await perf('-m', 'trivial', ...target, '--request-intervals', intervals, ...FAST, '--json');
      expect(code).toBe(0);
      const report = JSON.parse(out) as PerfReport;
      expect([report.load, report.settings?.requestIntervals]).toEqual(['request-rate', { file: intervals, intervals: 2 }]);
      expect(report.rows.map((r) => r.requestRate)).toEqual([1000]);
      expect(report.rows[0]!.server!.inferenceCount).toBeGreaterThan(0);
    }
  });

  it('exits 2 naming the file and line of a bad interval', async () => {
    const bad = path.join(tmp, 'bad.txt');
    writeFileSync(bad, '100\n-5\n');
    const { code, err } = await perf('-m', 'trivial', '-u', server.http, '--request-intervals', bad);
    expect(code).toBe(2);
    expect(err).toContain(`--request-intervals ${bad}:2: -5 is negative; an interval is the time from one request to the next, 0 µs or more`);
  });
});
