/**
 * `npm run soak`: `gebe serve` (native front end, explicit model control) in its own process under
 * mixed valid and hostile traffic on loopback for SOAK_SECONDS (default 600), with its RSS sampled
 * every second. Not in CI.
 *
 * Traffic, from SOAK_CLIENTS (default 12) concurrent loops, each picking at random:
 * - valid: HTTP JSON infer, HTTP binary infer, gRPC ModelInfer, health and metadata, repository
 *   load/unload of a second model (mnist_b) in explicit mode;
 * - malformed: garbage bytes, bad JSON, a huge declared Content-Length with a few bytes, an
 *   ffffffffffffffff chunk size, CONNECT, HTTP/1.0 without Host, a header section over the limit;
 * - slow clients (headers sent a few bytes at a time) and vanishing clients (half a body, then a
 *   reset).
 *
 * Every request whose bytes were all sent must get exactly one answer (any status): "lost" counts
 * those that got none (the connection ended, or nothing in 30 s). Vanishing clients hang up
 * themselves and are counted apart. Prints requests sent, answered, lost (must be 0) and RSS at
 * start/peak/end; exits 1 when any was lost.
 */
import * as grpc from '@grpc/grpc-js';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceDefinition } from '../src/core/kserve/grpc-proto.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 12);
if (!(SECONDS > 0) || !(CLIENTS >= 1)) {
  console.error('SOAK_SECONDS and SOAK_CLIENTS must be positive numbers');
  process.exit(2);
}
const ANSWER_TIMEOUT_MS = 30_000;

const counts = { sent: 0, answered: 0, lost: 0, vanished: 0, grpc: 0, loads: 0 };
const byKind = new Map<string, { sent: number; answered: number; lost: number }>();
const statuses = new Map<string, number>();

function tally(kind: string, answered: boolean, status?: string | number): void {
  const k = byKind.get(kind) ?? { sent: 0, answered: 0, lost: 0 };
  k.sent++;
  counts.sent++;
  if (answered) {
    k.answered++;
    counts.answered++;
    const key = `${kind} ${status}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  } else {
    k.lost++;
    counts.lost++;
  }
  byKind.set(kind, k);
}

// ---- the server ----

async function startServer(repo: string): Promise<{ http: number; grpc: number; pid: number; stderr: () => string; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, [path.join(root, 'bin/gebe.js'), 'serve', repo, '--http-port', '0', '--grpc-port', '0', '--metrics-port', '0',
    '--model-control-mode', 'explicit', '--load-model', 'mnist', '--exit-timeout-secs', '10'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err = (err + d).slice(-20_000)));
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
    ...ports, pid: child.pid!, stderr: () => err,
    stop: () => new Promise((resolve) => {
      child.on('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    }),
  };
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

// ---- raw HTTP exchanges ----

/**
 * Sends `parts` (with `gapMs` between them) on a fresh connection and waits for one whole answer.
 * Resolves with its status, or undefined when the connection ended first or nothing came in time.
 */
function exchange(port: number, parts: Array<string | Buffer>, gapMs = 0): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let buffer = Buffer.alloc(0);
    let settled = false;
    const finish = (status: number | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(status);
    };
    const timer = setTimeout(() => finish(undefined), ANSWER_TIMEOUT_MS);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buffer.subarray(0, end).toString('latin1');
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffer.byteLength >= end + 4 + length) finish(Number(head.slice(9, 12)));
    });
    socket.on('error', () => finish(undefined));
    socket.on('close', () => finish(undefined));
    socket.on('connect', async () => {
      for (const part of parts) {
        if (settled) return;
        socket.write(part);
        if (gapMs > 0) await sleep(gapMs);
      }
    });
  });
}

/** An incomplete request (by default half of `request`), then after `holdMs` a reset: the server must shrug it off. */
function vanish(port: number, request: string, holdMs = 0, part = request.slice(0, Math.floor(request.length / 2))): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(holdMs > 0 ? request : part, async () => {
        if (holdMs > 0) await sleep(holdMs);
        socket.resetAndDestroy();
        counts.vanished++;
        resolve();
      });
    });
    socket.on('error', () => resolve());
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- the traffic ----

const image = Array.from({ length: 784 }, (_, i) => (i % 29) / 29);
const jsonBody = JSON.stringify({ inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], data: image }] });
const binaryHeader = JSON.stringify({ inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], parameters: { binary_data_size: 784 * 4 } }], outputs: [{ name: 'logits', parameters: { binary_data: true } }] });
const binaryBody = Buffer.concat([Buffer.from(binaryHeader), Buffer.from(new Float32Array(image).buffer)]);

const post = (p: string, body: string | Buffer, extra = ''): Buffer => Buffer.concat([
  Buffer.from(`POST ${p} HTTP/1.1\r\nHost: soak\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`), Buffer.from(body)]);

type Kind = (ports: { http: number; grpc: number }, grpcClient: grpc.Client & Record<string, any>) => Promise<void>;

const http = (kind: string, parts: Array<string | Buffer>, gapMs = 0): Kind => async ({ http: port }) => {
  const status = await exchange(port, parts, gapMs);
  tally(kind, status !== undefined, status);
};

const KINDS: Array<[weight: number, name: string, run: Kind]> = [
  [20, 'http json infer', http('http json infer', [post('/v2/models/mnist/infer', jsonBody)])],
  [20, 'http binary infer', http('http binary infer', [post('/v2/models/mnist/infer', binaryBody, `Inference-Header-Content-Length: ${Buffer.byteLength(binaryHeader)}\r\n`)])],
  [15, 'grpc infer', async (_p, client) => {
    const request = { model_name: 'mnist', inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28] }], raw_input_contents: [Buffer.from(new Float32Array(image).buffer)] };
    const code = await new Promise<number | undefined>((resolve) => {
      const deadline = new Date(Date.now() + ANSWER_TIMEOUT_MS);
      client.ModelInfer(request, { deadline }, (err: grpc.ServiceError | null) => resolve(err ? (err.code === grpc.status.DEADLINE_EXCEEDED ? undefined : err.code) : 0));
    });
    counts.grpc++;
    tally('grpc infer', code !== undefined, code);
  }],
  [5, 'health', http('health', ['GET /v2/health/ready HTTP/1.1\r\nHost: soak\r\n\r\n'])],
  [3, 'metadata', http('metadata', ['GET /v2/models/mnist HTTP/1.1\r\nHost: soak\r\n\r\n'])],
  [3, 'repository load/unload', async ({ http: port }) => {
    const action = Math.random() < 0.5 ? 'load' : 'unload';
    counts.loads++;
    const status = await exchange(port, [post(`/v2/repository/models/mnist_b/${action}`, '{}')]);
    tally('repository load/unload', status !== undefined, status);
  }],
  [4, 'garbage bytes', http('garbage bytes', [Buffer.from(Array.from({ length: 200 }, () => Math.floor(Math.random() * 256)))])],
  [4, 'bad json', http('bad json', [post('/v2/models/mnist/infer', '{"inputs": [{"name": "image", "shape": [1, "x"')])],
  [3, 'declared 64 MB, sent 40 bytes, held 2 s', async ({ http: port }) => {
    // An incomplete request: nothing to answer yet; the server must hold 40 bytes, not 64 MB.
    await vanish(port, 'POST /v2/models/mnist/infer HTTP/1.1\r\nHost: soak\r\nContent-Length: 67108864\r\n\r\n{"inputs": [{"name": "image", "shape": [', 2000);
  }],
  [2, 'chunk size ffffffffffffffff', http('chunk size ffffffffffffffff', ['POST /v2/models/mnist/infer HTTP/1.1\r\nHost: soak\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nab'])],
  [2, 'CONNECT', http('CONNECT', ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'])],
  [2, 'HTTP/1.0 without Host', http('HTTP/1.0 without Host', ['GET /v2/health/live HTTP/1.0\r\n\r\n'])],
  [2, 'headers over the limit', http('headers over the limit', [`GET /v2 HTTP/1.1\r\nHost: soak\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`])],
  [3, 'slow client', http('slow client', Array.from('GET /v2/health/live HTTP/1.1\r\nHost: soak\r\n\r\n'.match(/.{1,6}/gs)!), 40)],
];
const TOTAL_WEIGHT = KINDS.reduce((s, [w]) => s + w, 0);

function pick(): Kind {
  let r = Math.random() * TOTAL_WEIGHT;
  for (const [w, , run] of KINDS) if ((r -= w) < 0) return run;
  return KINDS[0]![2];
}

async function main(): Promise<void> {
  const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-soak-'));
  cpSync(path.join(root, 'templates/mnist'), path.join(repo, 'mnist'), { recursive: true });
  cpSync(path.join(root, 'templates/mnist'), path.join(repo, 'mnist_b'), { recursive: true });
  const { readFileSync: read, writeFileSync } = await import('node:fs');
  const configB = path.join(repo, 'mnist_b', 'config.pbtxt');
  writeFileSync(configB, read(configB, 'utf8').replace('name: "mnist"', 'name: "mnist_b"'));
  const server = await startServer(repo);
  const Ctor = grpc.makeGenericClientConstructor(serviceDefinition('inference.GRPCInferenceService', 'client'), 'inference');
  const client = new Ctor(`127.0.0.1:${server.grpc}`, grpc.credentials.createInsecure()) as grpc.Client & Record<string, any>;
  const rss: number[] = [rssMiB(server.pid)];
  console.error(`soak: ${SECONDS} s, ${CLIENTS} client loops against gebe serve (pid ${server.pid}, HTTP ${server.http}, gRPC ${server.grpc}); RSS ${rss[0]!.toFixed(0)} MiB`);
  const started = Date.now();
  const deadline = started + SECONDS * 1000;
  const sampler = setInterval(() => {
    rss.push(rssMiB(server.pid));
    const elapsed = Math.round((Date.now() - started) / 1000);
    if (elapsed % 30 === 0) console.error(`  ${elapsed} s: sent ${counts.sent}, answered ${counts.answered}, lost ${counts.lost}, RSS ${rss[rss.length - 1]!.toFixed(0)} MiB`);
  }, 1000);
  const loops = Array.from({ length: CLIENTS }, async (_, i) => {
    while (Date.now() < deadline) {
      if (i === 0 && Math.random() < 0.2) await vanish(server.http, post('/v2/models/mnist/infer', jsonBody).toString('latin1'));
      else await pick()({ http: server.http, grpc: server.grpc }, client);
    }
  });
  await Promise.all(loops);
  clearInterval(sampler);
  rss.push(rssMiB(server.pid));
  client.close();
  const code = await server.stop();
  rmSync(repo, { recursive: true, force: true });

  console.log(`\nsoak: ${SECONDS} s, ${CLIENTS} client loops, gebe serve --model-control-mode explicit (native HTTP front end), loopback`);
  console.log(`requests sent ${counts.sent}, answered ${counts.answered}, lost ${counts.lost}; clients that hung up on an incomplete request ${counts.vanished} (not counted as sent)`);
  console.log(`RSS MiB: start ${rss[0]!.toFixed(0)}, peak ${Math.max(...rss).toFixed(0)}, end ${rss[rss.length - 1]!.toFixed(0)} (${rss.length} samples)`);
  console.log('\nkind                              sent  answered  lost  statuses');
  for (const [, name] of KINDS) {
    const k = byKind.get(name);
    if (!k) continue;
    const st = [...statuses].filter(([key]) => key.startsWith(`${name} `)).map(([key, n]) => `${key.slice(name.length + 1)}×${n}`).join(' ');
    console.log(`${name.padEnd(32)} ${String(k.sent).padStart(6)} ${String(k.answered).padStart(9)} ${String(k.lost).padStart(5)}  ${st}`);
  }
  console.log(`\nserver exit code after SIGTERM: ${code}`);
  if (counts.lost > 0 || code !== 0) {
    console.error(server.stderr().split('\n').slice(-20).join('\n'));
    process.exit(1);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
