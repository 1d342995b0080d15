/**
 * `npm run bench:serve`: the MNIST CNN (instance count 2, dynamic batching) served by `gebe serve`
 * in its own process, measured over HTTP JSON, HTTP binary (both with Debian's `wrk`) and gRPC,
 * side by side with the same model driven in-process through the executor, at concurrency 1, 4
 * and 16, all in one run. Prints one table with the ratios.
 *
 * HTTP is measured twice: through the native front end (the default) and through node:http
 * (`--http-frontend node`, a second server process), so the table shows what the native one saves.
 *
 * Method, and why:
 * - The in-process model and the served one use the same config (templates/mnist as it is). Both
 *   stay loaded for the whole run, and the cells are interleaved by concurrency (in-process c1,
 *   then every protocol at c1, then c4, ...): on a small machine shared with other work the load
 *   drifts over a minute, and each ratio should compare figures taken seconds apart.
 * - The cells the targets are set for, in-process against HTTP binary and gRPC, are measured in
 *   BENCH_ROUNDS alternating rounds (default 3) at each concurrency: on this kind of shared VM one
 *   3-second cell swings by 10-15% from minute to minute (an added p50 by tens of µs), so a single
 *   cell can land anywhere in that band. Their row is the total over the rounds (requests /
 *   seconds; p50 and p99 are the median round's), and the ratio and added p50 of every round,
 *   against that round's in-process cell, are printed under the table.
 * - On 2 cores the load generator takes CPU the in-process baseline never pays for. So at
 *   concurrency 16 the pair is measured once more with the load generator on a core of its own:
 *   this process and gebe serve are confined to the first allowed CPU (taskset, all threads) and
 *   wrk runs on the second. That is how a server is used (the clients run elsewhere), on a
 *   smaller budget: one core for the model either way.
 * - Load generators run on the same cores as the server (the in-process baseline pays no client
 *   at all), so they must be cheap: HTTP load comes from `wrk`, gRPC load from nghttp2's `h2load`
 *   (Debian package nghttp2-client; one HTTP/2 connection with `conc` concurrent streams, as one
 *   gRPC channel), both C programs. Every gRPC request is checked: one ModelInfer through
 *   @grpc/grpc-js first, then the server's success count must cover every request h2load
 *   completed (grpc-status travels in trailers, which h2load does not read).
 * - The "gRPC grpc-js client" rows drive the same server from a @grpc/grpc-js client in this
 *   process: on this hardware that client costs 2-3x more CPU per call than the server, so those
 *   rows mostly measure the client. They are kept to show the difference.
 * - CPU per request is printed beside throughput (from /proc for the server, bash's `time` for
 *   wrk/h2load, process.cpuUsage here): when other work shares the cores, throughput ratios swing
 *   from run to run, while CPU per request says what serving costs. "CPU/req vs in-process" adds
 *   the client's CPU, since on this machine it runs on the same cores as the server.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as hdr from 'hdr-histogram-js';
import { parseModelConfig } from '../src/core/config/index.js';
import { loadModel } from '../src/core/executor/index.js';
import { grpcRoot, serviceDefinition } from '../src/core/kserve/grpc-proto.js';

const root = fileURLToPath(new URL('../', import.meta.url));
/** A positive number from the environment (whole when `whole`); anything else stops the run with one line. */
function fromEnv(name: string, fallback: number, whole: boolean): number {
  const raw = process.env[name];
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (whole && !Number.isInteger(n))) {
    console.error(`error: ${name} must be a ${whole ? 'whole number' : 'number'} above 0, got '${raw}'`);
    process.exit(2);
  }
  return n;
}

const SECONDS = fromEnv('BENCH_SECONDS', 3, false);
const ROUNDS = fromEnv('BENCH_ROUNDS', 3, true);
/** BENCH_CONCURRENCY: a comma-separated subset of 1,4,16 (default all). */
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '1,4,16').split(',').map(Number);
if (CONCURRENCY.some((c) => ![1, 4, 16].includes(c))) {
  console.error(`error: BENCH_CONCURRENCY must list some of 1,4,16, got '${process.env.BENCH_CONCURRENCY}'`);
  process.exit(2);
}
/** BENCH_REFERENCES=0 leaves out the node:http and grpc-js client rows (a quicker run of the native front ends). */
const REFERENCES = process.env.BENCH_REFERENCES !== '0';

interface Row {
  mode: string;
  concurrency: number;
  throughput: number;
  p50: number;
  p99: number;
  /** CPU µs per request of the process that runs the model (this one in-process, else gebe serve). */
  cpu?: number;
  /** CPU µs per request of the load generator, where it is another process or (grpc-js) this one. */
  clientCpu?: number;
  /** Requests completed and seconds measured: what rounds are summed by. */
  requests: number;
  seconds: number;
}

type Cell = Omit<Row, 'mode' | 'concurrency'>;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** Rounds of one cell as one: totals for throughput and CPU, the median round for latency. */
function combine(cells: Cell[]): Cell {
  const requests = cells.reduce((sum, c) => sum + c.requests, 0);
  const seconds = cells.reduce((sum, c) => sum + c.seconds, 0);
  const weighted = (pick: (c: Cell) => number | undefined): number | undefined =>
    cells.some((c) => pick(c) === undefined) ? undefined : cells.reduce((sum, c) => sum + pick(c)! * c.requests, 0) / requests;
  return {
    requests, seconds, throughput: requests / seconds,
    p50: median(cells.map((c) => c.p50)), p99: median(cells.map((c) => c.p99)),
    cpu: weighted((c) => c.cpu), clientCpu: weighted((c) => c.clientCpu),
  };
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (user + system, all threads) a process has used so far, in µs; undefined without /proc. */
function processCpuMicros(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

function selfCpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** Runs a load generator; returns its stdout and the CPU it used (bash's `time`, children included). */
function runTimed(cmd: string, args: string[]): { out: string; cpu?: number } {
  const r = spawnSync('bash', ['-c', 'TIMEFORMAT="cpu %3U %3S"; time "$@"', 'bash', cmd, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  const t = /cpu ([0-9.]+) ([0-9.]+)\s*$/.exec(r.stderr);
  return { out: r.stdout, cpu: t ? (Number(t[1]) + Number(t[2])) * 1e6 : undefined };
}

/** Server CPU over `run`, per request. */
function perRequest(before: number | undefined, after: number | undefined, requests: number): number | undefined {
  return before === undefined || after === undefined || requests === 0 ? undefined : (after - before) / requests;
}

function histogram(): hdr.Histogram {
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 });
}

/** Closed loop: `concurrency` workers each issue the next request when the last one finishes. */
async function closedLoop(concurrency: number, once: () => Promise<unknown>, serverPid?: number): Promise<Cell> {
  const warmEnd = performance.now() + 500;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < warmEnd) await once();
  }));
  const h = histogram();
  let count = 0;
  const self0 = selfCpuMicros();
  const server0 = serverPid === undefined ? undefined : processCpuMicros(serverPid);
  const start = performance.now();
  const end = start + SECONDS * 1000;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      await once();
      h.recordValue(Math.max(1, Math.round((performance.now() - t0) * 1000)));
      count++;
    }
  }));
  const elapsed = (performance.now() - start) / 1000;
  const selfCpu = (selfCpuMicros() - self0) / count;
  const times = { requests: count, seconds: elapsed, throughput: count / elapsed, p50: h.getValueAtPercentile(50), p99: h.getValueAtPercentile(99) };
  if (serverPid === undefined) return { ...times, cpu: selfCpu };
  return { ...times, cpu: perRequest(server0, processCpuMicros(serverPid), count), clientCpu: selfCpu };
}

/** A wrk Lua script that POSTs `body` (any bytes) with `headers`. */
function wrkScript(body: Buffer, headers: Record<string, string>, file: string): void {
  const escaped = Array.from(body, (b) => `\\${b}`).join('');
  const hdrs = Object.entries(headers).map(([k, v]) => `wrk.headers["${k}"] = "${v}"`).join('\n');
  writeFileSync(file, `wrk.method = "POST"\nwrk.body = "${escaped}"\n${hdrs}\n`);
}

/** A wrk duration (its units: us, ms, s, m, h) in µs. */
function toMicros(value: string): number {
  const units: Record<string, number> = { us: 1, ms: 1e3, s: 1e6, m: 60e6, h: 3600e6 };
  const m = /^([0-9.]+)(us|ms|s|m|h)$/.exec(value.trim());
  if (!m) throw new Error(`unexpected wrk duration '${value}'`);
  return Number(m[1]) * units[m[2]!]!;
}

/** The CPUs this process may run on (taskset's list), or undefined without taskset. */
function allowedCpus(): string[] | undefined {
  try {
    const out = execFileSync('taskset', ['-c', '-p', String(process.pid)], { encoding: 'utf8' });
    const list = /list:\s*(\S+)/.exec(out)?.[1];
    return list?.split(',').flatMap((part) => {
      const [a, b] = part.split('-').map(Number);
      return b === undefined ? [String(a)] : Array.from({ length: b - a! + 1 }, (_, i) => String(a! + i));
    });
  } catch {
    return undefined;
  }
}

/** Confines every thread of `pid` to `cpus` (a taskset list). */
function pin(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-c', '-p', cpus, String(pid)], { stdio: 'ignore' });
}

/** `clientCpu`: a taskset CPU list for wrk itself; by default it runs wherever the kernel puts it. */
function wrk(url: string, script: string, concurrency: number, serverPid: number, clientCpu?: string): Cell {
  const [cmd, pre] = clientCpu === undefined ? ['wrk', []] : ['taskset', ['-c', clientCpu, 'wrk']];
  // One wrk thread drives 16 connections easily and leaves the second core to the server.
  execFileSync(cmd, [...pre, '-t1', `-c${concurrency}`, '-d1s', '-s', script, url], { encoding: 'utf8' }); // warm-up
  const server0 = processCpuMicros(serverPid);
  const { out, cpu } = runTimed(cmd, [...pre, '-t1', `-c${concurrency}`, `-d${SECONDS}s`, '--latency', '-s', script, url]);
  const server1 = processCpuMicros(serverPid);
  const rps = /Requests\/sec:\s+([0-9.]+)/.exec(out);
  const requests = /(\d+) requests in ([0-9.]+(?:us|ms|s|m|h)),/.exec(out);
  const p50 = /^\s+50%\s+(\S+)/m.exec(out);
  const p99 = /^\s+99%\s+(\S+)/m.exec(out);
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (!rps || !p50 || !p99 || !requests) throw new Error(`could not read wrk's output:\n${out}`);
  if (errors) throw new Error(`wrk saw ${errors[1]} error responses:\n${out}`);
  const n = Number(requests[1]);
  return {
    requests: n, seconds: toMicros(requests[2]!) / 1e6,
    throughput: Number(rps[1]), p50: toMicros(p50[1]!), p99: toMicros(p99[1]!),
    cpu: perRequest(server0, server1, n), clientCpu: cpu === undefined ? undefined : cpu / n,
  };
}

async function startServer(repo: string, extraArgs: string[] = []): Promise<{ http: number; grpc: number; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [path.join(root, 'bin/gebe.js'), 'serve', repo, '--http-port', '0', '--grpc-port', '0', '--metrics-port', '0', ...extraArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const ports = await new Promise<{ http: number; grpc: number }>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const h = /HTTP\s+http:\/\/[^:]+:(\d+)/.exec(out);
      const g = /gRPC\s+[^:]+:(\d+)/.exec(out);
      if (h && g) resolve({ http: Number(h[1]), grpc: Number(g[1]) });
    });
    child.on('exit', (code) => reject(new Error(`gebe serve exited with ${code}:\n${out}\n${err}`)));
  });
  return {
    ...ports,
    pid: child.pid!,
    stop: () => new Promise((resolve) => {
      child.on('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

/** Percentile (0-100) of sorted values. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function successCount(httpPort: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${httpPort}/v2/models/mnist/stats`);
  const body = (await res.json()) as { model_stats: Array<{ inference_stats: { success: { count: number } } }> };
  return body.model_stats[0]!.inference_stats.success.count;
}

/**
 * gRPC ModelInfer load from h2load: one connection, `concurrency` streams. Latency percentiles come
 * from h2load's per-request log; the server's success count must cover every completed request.
 */
async function h2load(port: number, httpPort: number, serverPid: number, frame: string, concurrency: number, dir: string): Promise<Cell> {
  const url = `http://127.0.0.1:${port}/inference.GRPCInferenceService/ModelInfer`;
  const args = ['-c1', `-m${concurrency}`, '-t1', '-d', frame, '-H', 'content-type: application/grpc', '-H', 'te: trailers'];
  execFileSync('h2load', [...args, '-D', '1', url], { encoding: 'utf8' }); // warm-up
  const log = path.join(dir, `h2load-${concurrency}.log`);
  const before = await successCount(httpPort);
  const server0 = processCpuMicros(serverPid);
  const { out, cpu } = runTimed('h2load', [...args, '-D', String(SECONDS), `--log-file=${log}`, url]);
  const server1 = processCpuMicros(serverPid);
  const after = await successCount(httpPort);
  const counts = /requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored/.exec(out);
  const rps = /finished in ([0-9.]+)s, ([0-9.]+) req\/s/.exec(out);
  if (!counts || !rps) throw new Error(`could not read h2load's output:\n${out}`);
  const [started, done, succeeded] = [Number(counts[2]), Number(counts[3]), Number(counts[4])];
  if (succeeded !== done) throw new Error(`h2load saw ${done - succeeded} failed gRPC requests:\n${out}`);
  // Up to `concurrency` requests the warm-up run left in flight may complete inside this window.
  if (after - before < done || after - before > started + concurrency) {
    throw new Error(`the server counted ${after - before} successful inferences while h2load completed ${done} gRPC requests: some answered with an error status`);
  }
  const latencies = readFileSync(log, 'utf8').trim().split('\n').map((line) => Number(line.split('\t')[2])).sort((a, b) => a - b);
  return {
    requests: done, seconds: Number(rps[1]),
    throughput: Number(rps[2]), p50: percentile(latencies, 50), p99: percentile(latencies, 99),
    cpu: perRequest(server0, server1, done), clientCpu: cpu === undefined ? undefined : cpu / done,
  };
}

/** A gRPC length-prefixed frame holding one ModelInferRequest, for h2load's request body. */
function grpcFrame(bytes: Uint8Array, file: string): void {
  const type = grpcRoot().lookupType('inference.ModelInferRequest');
  const message = type.encode(type.fromObject({ model_name: 'mnist', inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28] }], raw_input_contents: [bytes] })).finish();
  const frame = Buffer.alloc(5 + message.byteLength);
  frame.writeUInt32BE(message.byteLength, 1);
  frame.set(message, 5);
  writeFileSync(file, frame);
}

async function main(): Promise<void> {
  const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-bench-serve-'));
  const modelDir = path.join(repo, 'mnist');
  cpSync(path.join(root, 'templates/mnist'), modelDir, { recursive: true });
  const configText = readFileSync(path.join(modelDir, 'config.pbtxt'), 'utf8');
  const config = parseModelConfig(configText, 'config.pbtxt').config;
  const pixels = new Float32Array(784).map((_, i) => ((i * 37) % 255) / 255);
  const bytes = new Uint8Array(pixels.buffer);
  const rows: Row[] = [];
  const rounds: Rounds[] = [];
  let ownCore: OwnCorePair | undefined;
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (err) {
    // wrk --version exits 1 after printing its version; only a missing binary is an error here.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      console.error('error: wrk not found: bench:serve measures HTTP with it (apt-get install wrk)');
      process.exit(2);
    }
  }
  const haveH2load = (() => {
    try {
      execFileSync('h2load', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      console.error('h2load not found (apt-get install nghttp2-client): gRPC is measured with the grpc-js client only');
      return false;
    }
  })();

  // Both stay up for the whole run; idle, neither uses the CPU.
  const model = await loadModel(modelDir, '1', config);
  const server = await startServer(repo);
  // The same server on Node's own HTTP stack (--http-frontend node), for the HTTP rows beside the native front end.
  const nodeServer = REFERENCES ? await startServer(repo, ['--http-frontend', 'node']) : undefined;
  const url = `http://127.0.0.1:${server.http}/v2/models/mnist/infer`;
  const nodeUrl = `http://127.0.0.1:${nodeServer?.http}/v2/models/mnist/infer`;
  const Client = grpc.makeGenericClientConstructor(serviceDefinition('inference.GRPCInferenceService', 'client'), 'GRPCInferenceService');
  const client = new Client(`127.0.0.1:${server.grpc}`, grpc.credentials.createInsecure()) as grpc.Client & Record<string, Function>;
  try {
    const jsonLua = path.join(repo, 'json.lua');
    wrkScript(Buffer.from(JSON.stringify({ inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], data: Array.from(pixels) }] })), { 'Content-Type': 'application/json' }, jsonLua);
    const header = Buffer.from(JSON.stringify({ inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], parameters: { binary_data_size: bytes.byteLength } }], outputs: [{ name: 'logits', parameters: { binary_data: true } }] }));
    const binLua = path.join(repo, 'binary.lua');
    wrkScript(Buffer.concat([header, Buffer.from(bytes.buffer)]), { 'Inference-Header-Content-Length': String(header.byteLength), 'Content-Type': 'application/octet-stream' }, binLua);
    const frame = path.join(repo, 'infer.grpc');
    grpcFrame(bytes, frame);

    const request = { model_name: 'mnist', inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28] }], raw_input_contents: [Buffer.from(bytes.buffer)] };
    const grpcOnce = () => new Promise<Record<string, any>>((resolve, reject) => client.ModelInfer!(request, (e: Error | null, r: Record<string, any>) => (e ? reject(e) : resolve(r))));
    // The request h2load replays must be one the server answers with the model's output.
    const check = await grpcOnce();
    if (check.outputs?.[0]?.name !== 'logits' || check.raw_output_contents?.[0]?.byteLength !== 40) {
      throw new Error(`unexpected ModelInfer response: ${JSON.stringify(check).slice(0, 300)}`);
    }

    for (const c of CONCURRENCY) {
      console.error(`concurrency ${c} …`);
      const inProcess: Cell[] = [];
      const binary: Cell[] = [];
      const grpcCells: Cell[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        inProcess.push(await closedLoop(c, () => model.infer({ inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], data: bytes }] })));
        binary.push(wrk(url, binLua, c, server.pid));
        if (haveH2load) grpcCells.push(await h2load(server.grpc, server.http, server.pid, frame, c, repo));
      }
      rounds.push({ concurrency: c, mode: 'HTTP binary', inProcess, cells: binary });
      if (haveH2load) rounds.push({ concurrency: c, mode: 'gRPC', inProcess, cells: grpcCells });
      rows.push({ mode: 'in-process', concurrency: c, ...combine(inProcess) });
      rows.push({ mode: 'HTTP binary', concurrency: c, ...combine(binary) });
      rows.push({ mode: 'HTTP JSON', concurrency: c, ...wrk(url, jsonLua, c, server.pid) });
      if (nodeServer) {
        rows.push({ mode: 'HTTP JSON, node:http', concurrency: c, ...wrk(nodeUrl, jsonLua, c, nodeServer.pid) });
        rows.push({ mode: 'HTTP binary, node:http', concurrency: c, ...wrk(nodeUrl, binLua, c, nodeServer.pid) });
      }
      if (haveH2load) rows.push({ mode: 'gRPC', concurrency: c, ...combine(grpcCells) });
      if (REFERENCES) rows.push({ mode: 'gRPC grpc-js client', concurrency: c, ...(await closedLoop(c, grpcOnce, server.pid)) });
    }
    const cpus = allowedCpus();
    if (cpus !== undefined && cpus.length >= 2 && CONCURRENCY.includes(16)) {
      const c = 16;
      console.error(`concurrency ${c}, load generator on its own core …`);
      const inProcess: Cell[] = [];
      const binary: Cell[] = [];
      pin(process.pid, cpus[0]!);
      pin(server.pid, cpus[0]!);
      try {
        for (let round = 0; round < ROUNDS; round++) {
          inProcess.push(await closedLoop(c, () => model.infer({ inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], data: bytes }] })));
          binary.push(wrk(url, binLua, c, server.pid, cpus[1]!));
        }
      } finally {
        pin(process.pid, cpus.join(','));
        pin(server.pid, cpus.join(','));
      }
      ownCore = { concurrency: c, model: cpus[0]!, client: cpus[1]!, inProcess: combine(inProcess), binary: combine(binary), rounds: binary.map((b, i) => b.throughput / inProcess[i]!.throughput) };
    } else {
      console.error('taskset not found or a single CPU: the pair with the load generator on its own core is left out');
    }
  } finally {
    client.close();
    await Promise.all([server.stop(), nodeServer?.stop()]);
    await model.unload();
    rmSync(repo, { recursive: true, force: true });
  }
  printTable(rows, rounds);
  if (ownCore) printOwnCore(ownCore);
}

/** The in-process / HTTP binary pair measured with the load generator on a core of its own. */
interface OwnCorePair {
  concurrency: number;
  model: string;
  client: string;
  inProcess: Cell;
  binary: Cell;
  rounds: number[];
}

function printOwnCore(p: OwnCorePair): void {
  console.log(`\nLoad generator on its own core, concurrency ${p.concurrency}: this process and gebe serve on CPU ${p.model}, wrk on CPU ${p.client}`);
  console.log(`in-process ${p.inProcess.throughput.toFixed(0)} infer/s (p50 ${p.inProcess.p50.toFixed(0)} µs), HTTP binary ${p.binary.throughput.toFixed(0)} infer/s (p50 ${p.binary.p50.toFixed(0)} µs): ` +
    `${(p.binary.throughput / p.inProcess.throughput).toFixed(2)}× (each round: ${p.rounds.map((r) => `${r.toFixed(2)}×`).join(', ')})`);
}

/** The cells of one mode measured in rounds alternating with in-process ones (round i with round i). */
interface Rounds {
  concurrency: number;
  mode: string;
  inProcess: Cell[];
  cells: Cell[];
}

function printTable(rows: Row[], rounds: Rounds[]): void {
  const base = new Map(rows.filter((r) => r.mode === 'in-process').map((r) => [r.concurrency, r]));
  const us = (v: number | undefined): string => (v === undefined ? '-' : v.toFixed(0));
  const header = ['mode', 'conc', 'infer/s', 'p50 µs', 'p99 µs', 'infer/s vs in-process', 'added p50 µs', 'CPU µs/req', 'client CPU µs/req', 'CPU/req vs in-process'];
  const body = rows.map((r) => {
    const b = base.get(r.concurrency)!;
    const inProcess = r.mode === 'in-process';
    const total = r.cpu === undefined ? undefined : r.cpu + (r.clientCpu ?? 0);
    return [r.mode, String(r.concurrency), r.throughput.toFixed(0), r.p50.toFixed(0), r.p99.toFixed(0),
      inProcess ? '1.00×' : `${(r.throughput / b.throughput).toFixed(2)}×`,
      inProcess ? '-' : (r.p50 - b.p50).toFixed(0),
      us(r.cpu), us(r.clientCpu),
      total === undefined || b.cpu === undefined ? '-' : `${(total / b.cpu).toFixed(2)}×`];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`gebe serve vs in-process executor: MNIST CNN (templates/mnist: instance count 2, dynamic batching), ${SECONDS}s per cell, ${os.cpus().length} CPUs`);
  console.log(`in-process, HTTP binary and gRPC: ${ROUNDS} alternating rounds per concurrency, summed (p50/p99: the median round)`);
  console.log('HTTP load from wrk (keep-alive, conc connections), gRPC from h2load (one connection, conc streams), in-process and');
  console.log('"grpc-js client" load from a closed loop in this process; cells interleaved by concurrency');
  console.log('CPU µs/req: the model\'s process (in-process: this one, with its load loop); client: wrk/h2load, or this process for');
  console.log('grpc-js; CPU/req vs in-process: (CPU + client CPU) over the in-process CPU, all on the same cores');
  console.log(line(header));
  for (const row of body) console.log(line(row));
  for (const r of rounds) {
    const each = r.cells.map((cell, i) => `${(cell.throughput / r.inProcess[i]!.throughput).toFixed(2)}× (+${(cell.p50 - r.inProcess[i]!.p50).toFixed(0)} µs)`);
    console.log(`${r.mode} / in-process at concurrency ${r.concurrency}, each round (added p50): ${each.join(', ')}`);
  }
}

await main();
