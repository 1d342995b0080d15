/**
 * npm run bench:perf — how much load gebe perf can drive, side by side with a reference in one run:
 *   in process: `gebe perf` on the executor vs a bare loop calling model.infer() (the model's ceiling)
 *   HTTP:       `gebe perf -u` vs Debian's wrk (a Lua script sends the same binary request) against
 *               the same `gebe serve` endpoint
 * Over HTTP both tools run as separate processes with the same concurrency and threads. The runs
 * alternate (reference, gebe perf, reference, ...) for BENCH_ROUNDS rounds and medians are
 * printed, so a busy machine shifts both sides alike. Target: gebe perf drives ≥ 80% of the reference.
 * Env: BENCH_CONCURRENCY (8), BENCH_SECONDS (4), BENCH_THREADS (2), BENCH_ROUNDS (3).
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../src/cli.js';
import { loadModel } from '../src/core/executor/index.js';
import { memoryIO } from '../src/io.js';
import { encodeBinaryInferRequest } from '../src/core/kserve/client/http-binary.js';
import { buildRequests } from '../src/core/perf/inputs.js';
import { resolveRepositoryModel } from '../src/core/perf/repository-model.js';
import type { PerfReport } from '../src/core/perf/report.js';
import { writePerfRepository } from '../test/helpers/perf-repository.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const gebe = path.join(root, 'bin', 'gebe.js');
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const threads = Number(process.env.BENCH_THREADS ?? 2);
const work = mkdtempSync(path.join(tmpdir(), 'gebe-bench-perf-'));
const repo = writePerfRepository(work);

/** gebe perf's flags for one run: windows of a third of the run; -s 100 because this measures capacity on a shared machine, not stability. */
function perfArgs(): string[] {
  return ['-m', 'trivial', '--concurrency', String(concurrency), '--measurement-interval', String(Math.round((seconds * 1000) / 3)), '-s', '100', '-r', '9', '--json'];
}

/** gebe perf as users run it, in its own process (from dist/). */
function gebePerfProcess(args: string[]): PerfReport {
  const out = execFileSync(process.execPath, [gebe, 'perf', ...perfArgs(), ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
  return JSON.parse(out) as PerfReport;
}

/** gebe perf in process, in this process beside the bare loop (same executor build, same conditions). */
async function gebePerfInProcess(): Promise<PerfReport> {
  const io = memoryIO({ cwd: work });
  await main(['node', 'gebe', 'perf', '--model-repository', repo, ...perfArgs()], io);
  if (!io.out()) throw new Error(`gebe perf failed: ${io.err()}`);
  return JSON.parse(io.out()) as PerfReport;
}

async function bareLoop(): Promise<number> {
  const ref = await resolveRepositoryModel(repo, 'trivial');
  const model = await loadModel(ref.dir, ref.version, ref.config);
  const [inputs] = buildRequests(model, 1, { INPUT0: [4] }, { kind: 'zero' });
  let done = 0;
  let running = true;
  const loop = async () => { while (running) { await model.infer({ inputs: inputs! }); done++; } };
  const warm = Array.from({ length: concurrency }, loop);
  await new Promise((r) => setTimeout(r, 500));
  const start = performance.now();
  const before = done;
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const rate = (done - before) / ((performance.now() - start) / 1000);
  running = false;
  await Promise.all(warm);
  await model.unload();
  return rate;
}

interface Server { port: number; stop(): Promise<void> }

/**
 * `gebe serve` in its own process. Until this build's CLI has the serve flags, the same server
 * core (GebeServer over the repository, native executor) is started from the test helper.
 */
function serveCommand(): string[] {
  const help = execFileSync(process.execPath, [gebe, 'serve', '--help'], { encoding: 'utf8' });
  if (help.includes('--http-port')) return [gebe, 'serve', repo, '--http-port', '0', '--grpc-port', '0', '--metrics-port', '0'];
  const helper = new URL('../test/helpers/perf-server.ts', import.meta.url).href;
  const code = `const { startPerfServer } = await import(${JSON.stringify(helper)});
const s = await startPerfServer(${JSON.stringify(repo)});
console.log('HTTP     http://' + s.http + '/v2');
process.on('SIGTERM', () => s.stop().then(() => process.exit(0)));`;
  return ['--import', 'tsx', '--input-type=module', '-e', code];
}

async function startServe(): Promise<Server> {
  const child = spawn(process.execPath, serveCommand(), { stdio: ['ignore', 'pipe', 'pipe'], cwd: root });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    let found = false;
    const onData = (chunk: Buffer) => {
      // Keep draining the pipes after the port is known, but stop collecting (a server log can be long).
      if (found) return;
      output += chunk.toString();
      const m = /HTTP\s+http:\/\/\S+:(\d+)\/v2/.exec(output);
      if (m) { found = true; resolve(Number(m[1])); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`gebe serve exited (${code}) before listening:\n${output}`)));
  });
  return {
    port,
    stop: () => new Promise((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); }),
  };
}

function wrk(port: number): number {
  const ref = { name: 'trivial', version: '1', maxBatchSize: 8, inputs: [{ name: 'INPUT0', datatype: 'FP32' as const, shape: [-1, 4] }], outputs: [{ name: 'OUTPUT0', datatype: 'FP32' as const, shape: [-1, 4] }] };
  const [inputs] = buildRequests(ref, 1, { INPUT0: [4] }, { kind: 'zero' });
  const { body, headerLength } = encodeBinaryInferRequest(inputs!, ['OUTPUT0']);
  const bodyFile = path.join(work, 'body.bin');
  writeFileSync(bodyFile, body);
  const script = path.join(work, 'infer.lua');
  writeFileSync(script, `local f = io.open(${JSON.stringify(bodyFile)}, "rb")
wrk.method = "POST"
wrk.body = f:read("*all")
f:close()
wrk.headers["Content-Type"] = "application/octet-stream"
wrk.headers["Inference-Header-Content-Length"] = "${headerLength}"
`);
  const out = execFileSync('wrk', ['-t', String(threads), '-c', String(concurrency), '-d', `${seconds}s`, '-s', script,
    `http://127.0.0.1:${port}/v2/models/trivial/versions/1/infer`], { encoding: 'utf8' });
  const bad = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (bad) throw new Error(`wrk got ${bad[1]} error responses; the request is wrong:\n${out}`);
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const fmt = (v: number) => v.toFixed(0).padStart(8);
function line(label: string, refName: string, ref: number[], ours: number[], busy: number[]): string {
  const r = median(ref);
  const o = median(ours);
  return `${label.padEnd(11)} ${refName.padEnd(22)} ${fmt(r)} req/s   gebe perf ${fmt(o)} req/s   ratio ${(o / r).toFixed(2)}   ` +
    `(runs: ${ref.map((v) => v.toFixed(0)).join('/')} vs ${ours.map((v) => v.toFixed(0)).join('/')}; busiest client loop ${(Math.max(...busy) * 100).toFixed(0)}%)`;
}

try {
  console.log(`gebe perf client capacity: trivial model (y = x + 1, FP32 [1,4]), concurrency ${concurrency}, ~${seconds} s per run, ${threads} client threads, median of ${rounds} alternating rounds`);
  const bare: number[] = [];
  const inProcess: number[] = [];
  const inProcessBusy: number[] = [];
  for (let i = 0; i < rounds; i++) {
    bare.push(await bareLoop());
    const row = (await gebePerfInProcess()).rows[0]!;
    inProcess.push(row.requestsPerSecond);
    inProcessBusy.push(row.clientLoopBusy);
  }
  console.log(line('in process', 'bare model.infer loop', bare, inProcess, inProcessBusy));
  const server = await startServe();
  try {
    const wrkRates: number[] = [];
    const perfRates: number[] = [];
    const perfBusy: number[] = [];
    for (let i = 0; i < rounds; i++) {
      wrkRates.push(wrk(server.port));
      const row = gebePerfProcess(['-u', `127.0.0.1:${server.port}`, '--client-threads', String(threads)]).rows[0]!;
      perfRates.push(row.requestsPerSecond);
      perfBusy.push(row.clientLoopBusy);
    }
    console.log(line('HTTP', `wrk -t${threads} -c${concurrency}`, wrkRates, perfRates, perfBusy));
  } finally {
    await server.stop();
  }
  console.log('target: gebe perf drives ≥ 0.80 of the reference');
} finally {
  rmSync(work, { recursive: true, force: true });
}
