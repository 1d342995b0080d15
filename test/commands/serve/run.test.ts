import { DEFAULT_OTEL_OPTIONS } from '../../../src/core/server/otel-exporter.js';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryIO } from '../../../src/io.js';
import { runServe, type ServeDeps } from '../../../src/commands/serve/run.js';
import type { ServeOptions } from '../../../src/commands/serve/options.js';
import { DiskModelSource } from '../../../src/core/server/disk-source.js';
import type { GebeServer, ServerPorts } from '../../../src/core/server/server.js';
import { DEFAULT_TRACE_SETTING } from '../../../src/core/server/trace-settings.js';
import { identityFromConfig } from '../../core/server/helpers/js-model.js';
import { OnnxGraphBuilder } from '../../helpers/onnx-builder.js';

/** A real ONNX file matching CONFIG (the validate rules inspect it): Y = Identity(X), [batch, n]. */
const identityOnnx = (n = 2) => new OnnxGraphBuilder('identity').input('X', 'FLOAT', ['batch', n]).output('Y', 'FLOAT', ['batch', n]).node('Identity', ['X'], ['Y']).encode();

const CONFIG = (name: string, extra = '') => `name: "${name}"\nbackend: "ge"\nmax_batch_size: 4\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ 2 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 2 ] } ]\n${extra}`;

let repo: string;
beforeEach(() => {
  repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-serve-'));
  for (const name of ['alpha', 'beta']) {
    mkdirSync(path.join(repo, name, '1'), { recursive: true });
    writeFileSync(path.join(repo, name, 'config.pbtxt'), CONFIG(name));
    writeFileSync(path.join(repo, name, '1', 'model.onnx'), identityOnnx());
  }
  mkdirSync(path.join(repo, 'gamma', '1'), { recursive: true });
  writeFileSync(path.join(repo, 'gamma', 'config.pbtxt'), 'name: "gamma"\nmax_batch_size: 4\n// a C++ comment\n');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

function options(overrides: Partial<ServeOptions> = {}): ServeOptions {
  return {
    repository: repo, host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, controlMode: 'none', loadModels: [],
    pollSeconds: 0.1, exitOnError: false, exitTimeoutSeconds: 2, logVerboseLevel: 0, logFormat: 'text', maxBodyBytes: 1 << 20, ...overrides,
  };
}

/** Runs the server until `stop()` is called; resolves once it listens. */
function start(opts: ServeOptions, io = memoryIO()) {
  let stop!: (signal: string) => void;
  const stopped = new Promise<string>((r) => (stop = r));
  let listening!: (v: { server: GebeServer; ports: ServerPorts }) => void;
  const ready = new Promise<{ server: GebeServer; ports: ServerPorts }>((r) => (listening = r));
  const deps: ServeDeps = {
    io,
    loadModel: async (_dir, version, config) => identityFromConfig(config.name!, version, config),
    createSource: (r) => new DiskModelSource(r),
    waitForStop: () => stopped,
    onListening: (server, ports) => listening({ server, ports }),
  };
  const done = runServe(opts, deps);
  const earlyEnd = done.then(() => { throw new Error('server ended early'); });
  earlyEnd.catch(() => undefined);
  done.catch(() => undefined);
  const raced = Promise.race([ready, earlyEnd]);
  raced.catch(() => undefined); // tests that expect a failure never await `ready`
  return { io, done, ready: raced, stop: () => stop('SIGTERM') };
}

describe('gebe serve (run)', () => {
  it('stops during start-up on a signal, without loading the rest or opening ports', async () => {
    let loads = 0;
    let stop!: (signal: string) => void;
    const stopped = new Promise<string>((r) => (stop = r));
    let listened = false;
    const io = memoryIO();
    const deps: ServeDeps = {
      io,
      // Each load is slow; the signal arrives during the first.
      loadModel: async (_dir, version, config) => {
        loads++;
        if (loads === 1) setTimeout(() => stop('SIGTERM'), 10);
        await new Promise((r) => setTimeout(r, 100));
        return identityFromConfig(config.name!, version, config);
      },
      createSource: (r) => new DiskModelSource(r),
      waitForStop: () => stopped,
      onListening: () => (listened = true),
    };
    // One load at a time (--model-load-thread-count 1), so "the rest" is every model after the first.
    await runServe(options({ loadThreads: 1 }), deps);
    expect(listened).toBe(false);
    expect(loads).toBe(1);
    expect(io.err()).toMatch(/received signal during start-up, stopping signal=SIGTERM/);
  });

  it('prints the model table and the endpoints, serves, and stops on a signal', async () => {
    const s = start(options());
    const { ports } = await s.ready;
    const out = s.io.out();
    expect(out).toMatch(/^MODEL\s+VERSION\s+STATE\s+ENGINE\s+INSTANCES\s+REASON$/m);
    expect(out).toMatch(/^alpha\s+1\s+READY\s+cpu\s+1$/m);
    expect(out).toMatch(/^gamma\s+1\s+UNAVAILABLE\s+-\s+-\s+failed to load 'gamma': gamma\/config.pbtxt:3:1 SYNTAX_/m);
    expect(out).toContain(`HTTP     http://127.0.0.1:${ports.http}/v2`);
    expect(out).toContain(`gRPC     127.0.0.1:${ports.grpc}`);
    expect(out).toContain(`metrics  http://127.0.0.1:${ports.metrics}/metrics`);
    const res = await fetch(`http://127.0.0.1:${ports.http}/v2/models/alpha/infer`, { method: 'POST', body: JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 2], data: [1, 2] }] }) });
    expect(res.status).toBe(200);
    s.stop();
    await s.done;
    expect(s.io.err()).toMatch(/ I received signal, stopping \(send it again to stop at once\) signal=SIGTERM/);
    expect(s.io.err()).toMatch(/ I server stopped/);
    await expect(fetch(`http://127.0.0.1:${ports.http}/v2/health/live`)).rejects.toThrow();
  });

  it('logs JSON lines with --log-format json', async () => {
    const s = start(options({ logFormat: 'json' }));
    await s.ready;
    s.stop();
    await s.done;
    const lines = s.io.err().trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.some((l) => l.message === 'model ready' && l.model === 'alpha')).toBe(true);
  });

  it('fails with --exit-on-error when a model does not load', async () => {
    const s = start(options({ exitOnError: true }));
    await expect(s.done).rejects.toThrow(/1 model version\(s\) failed to load and --exit-on-error is set: gamma/);
  });

  it('refuses a missing repository and a busy port with what to do', async () => {
    await expect(start(options({ repository: path.join(repo, 'nope') })).done).rejects.toThrow(/does not exist/);
    const first = start(options());
    const { ports } = await first.ready;
    const second = start(options({ httpPort: ports.http! }));
    await expect(second.done).rejects.toThrow(/already in use/);
    first.stop();
    await first.done;
  });

  it('loads only --load-model models in explicit mode', async () => {
    const s = start(options({ controlMode: 'explicit', loadModels: ['beta'] }));
    const { ports } = await s.ready;
    expect(s.io.out()).not.toMatch(/^alpha/m);
    expect((await fetch(`http://127.0.0.1:${ports.http}/v2/models/beta/ready`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ports.http}/v2/models/alpha/ready`)).status).toBe(404);
    s.stop();
    await s.done;
  });

  it('validates a load request\'s config parameter with the validate rules before loading it', async () => {
    const s = start(options({ controlMode: 'explicit', loadModels: ['alpha'] }));
    const { ports } = await s.ready;
    const load = (config: unknown) => fetch(`http://127.0.0.1:${ports.http}/v2/repository/models/alpha/load`, { method: 'POST', body: JSON.stringify({ parameters: { config: JSON.stringify(config) } }) });
    const base = { name: 'alpha', backend: 'ge', max_batch_size: 2, input: [{ name: 'X', data_type: 'TYPE_FP32', dims: ['2'] }], output: [{ name: 'Y', data_type: 'TYPE_FP32', dims: ['2'] }] };
    const bogus = await load({ ...base, bogus: 1 });
    expect(bogus.status).toBe(400);
    expect(((await bogus.json()) as { error: string }).error).toMatch(/not a valid ModelConfig: field bogus: inference.ModelConfig has no such field/);
    const mismatch = await load({ ...base, input: [{ name: 'X', data_type: 'TYPE_FP32', dims: [3] }] });
    expect(mismatch.status).toBe(400);
    expect(((await mismatch.json()) as { error: string }).error).toMatch(/alpha\/config.pbtxt \(from the load request's 'config'\):\d+:\d+ [A-Z_]+ /);
    expect((await load(base)).status).toBe(200);
    const config = (await (await fetch(`http://127.0.0.1:${ports.http}/v2/models/alpha/config`)).json()) as { max_batch_size: number };
    expect(config.max_batch_size).toBe(2);
    s.stop();
    await s.done;
  });

  it('reloads changed configs and new models in poll mode', async () => {
    const s = start(options({ controlMode: 'poll' }));
    const { ports, server } = await s.ready;
    const url = `http://127.0.0.1:${ports.http}`;
    writeFileSync(path.join(repo, 'alpha', 'config.pbtxt'), CONFIG('alpha').replace(/dims: \[ 2 \]/g, 'dims: [ 3 ]'));
    writeFileSync(path.join(repo, 'alpha', '1', 'model.onnx'), identityOnnx(3));
    mkdirSync(path.join(repo, 'delta', '1'), { recursive: true });
    writeFileSync(path.join(repo, 'delta', '1', 'model.onnx'), identityOnnx());
    writeFileSync(path.join(repo, 'delta', 'config.pbtxt'), CONFIG('delta'));
    await server.models.poll(); // the same poll the timer runs
    const meta = (await (await fetch(`${url}/v2/models/alpha`)).json()) as { inputs: Array<{ shape: number[] }> };
    expect(meta.inputs[0]!.shape).toEqual([-1, 3]);
    expect((await fetch(`${url}/v2/models/delta/ready`)).status).toBe(200);
    rmSync(path.join(repo, 'beta'), { recursive: true });
    await server.models.poll();
    expect((await fetch(`${url}/v2/models/beta/ready`)).status).toBe(404);
    s.stop();
    await s.done;
  });
});

describe('tritonserver flags on a running server', () => {
  it('names the flags it accepts without effect, and runs the listeners, name and CPU metrics they ask for', async () => {
    const s = start(options({ ignoredTritonFlags: ['--allow-gpu-metrics (gebe runs on no GPU)'], allowGrpc: false, serverId: 'triton-a', cpuMetrics: { enabled: true, intervalMs: 100 } }));
    const { ports } = await s.ready;
    try {
      expect(s.io.err()).toMatch(/Triton flags that gebe serve accepts without effect flags="--allow-gpu-metrics \(gebe runs on no GPU\)"/);
      expect(ports.grpc).toBeUndefined();
      expect(s.io.out()).not.toMatch(/^gRPC/m);
      expect(((await (await fetch(`http://127.0.0.1:${ports.http}/v2`)).json()) as { name: string }).name).toBe('triton-a');
      await new Promise((r) => setTimeout(r, 250));
      const metrics = await (await fetch(`http://127.0.0.1:${ports.metrics}/metrics`)).text();
      const value = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(metrics)?.[1]);
      expect(value('nv_cpu_utilization')).toBeGreaterThanOrEqual(0);
      expect(value('nv_cpu_utilization')).toBeLessThanOrEqual(1);
      expect(value('nv_cpu_memory_total_bytes')).toBe(os.totalmem());
      expect(value('nv_cpu_memory_used_bytes')).toBeGreaterThan(0);
      expect(value('nv_cpu_memory_used_bytes')).toBeLessThan(os.totalmem());
    } finally {
      s.stop();
      await s.done;
    }
    const quiet = start(options({ cpuMetrics: { enabled: false, intervalMs: 2000 }, allowMetrics: true }));
    const q = await quiet.ready;
    try {
      expect(await (await fetch(`http://127.0.0.1:${q.ports.metrics}/metrics`)).text()).not.toContain('nv_cpu_');
      expect(q.ports.grpc).toBeGreaterThan(0);
    } finally {
      quiet.stop();
      await quiet.done;
    }
  });
});

describe('several --model-repository (as Triton)', () => {
  it('serves the models of every repository, and refuses a model name two of them hold, naming both', async () => {
    const second = mkdtempSync(path.join(os.tmpdir(), 'gebe-serve-second-'));
    try {
      for (const name of ['delta', 'alpha']) {
        mkdirSync(path.join(second, name, '1'), { recursive: true });
        writeFileSync(path.join(second, name, 'config.pbtxt'), CONFIG(name));
        writeFileSync(path.join(second, name, '1', 'model.onnx'), identityOnnx());
      }
      const s = start(options({ moreRepositories: [second] }));
      const { ports } = await s.ready;
      try {
        const ready = async (m: string) => (await fetch(`http://127.0.0.1:${ports.http}/v2/models/${m}/ready`)).status;
        expect(await ready('beta')).toBe(200);
        expect(await ready('delta')).toBe(200);
        expect(await ready('alpha')).toBe(400);
        const index = (await (await fetch(`http://127.0.0.1:${ports.http}/v2/repository/index`, { method: 'POST', body: '{}' })).json()) as Array<{ name: string; reason?: string }>;
        expect(index.find((e) => e.name === 'alpha')?.reason).toBe(`failed to load 'alpha': model 'alpha' is in more than one model repository (${repo}, ${second}); rename or remove all but one`);
        expect(s.io.err()).toMatch(new RegExp(`loading model repository repository="${repo}, ${second}"`));
      } finally {
        s.stop();
        await s.done;
      }
    } finally {
      rmSync(second, { recursive: true, force: true });
    }
  });
});

describe('--log-file (as Triton)', () => {
  it('writes the log lines to the file, appending, and the logging extension names it', async () => {
    const file = path.join(repo, 'gebe.log');
    writeFileSync(file, 'an earlier line\n');
    const s = start(options({ logFile: file }));
    const { ports } = await s.ready;
    try {
      const settings = (await (await fetch(`http://127.0.0.1:${ports.http}/v2/logging`)).json()) as { log_file: string };
      expect(settings.log_file).toBe(file);
    } finally {
      s.stop();
      await s.done;
    }
    const lines = readFileSync(file, 'utf8');
    expect(lines.startsWith('an earlier line\n')).toBe(true);
    expect(lines).toMatch(/ I server started http=\d+/);
    expect(lines).toMatch(/ I server stopped/);
    expect(s.io.err()).not.toMatch(/server started/);
  });

  it('goes on logging to stderr when the file cannot take a line (a full disk), saying why', async () => {
    const s = start(options({ logFile: '/dev/full' }));
    await s.ready;
    s.stop();
    await s.done;
    expect(s.io.err()).toMatch(/--log-file '\/dev\/full' cannot be written \(ENOSPC.*\); logging to stderr from here/);
    expect(s.io.err()).toMatch(/ I server started/);
  });
});

describe('gebe serve exposure warning', () => {
  it('warns on a non-loopback address with the model-repository and shared-memory APIs unrestricted, not once they are restricted', async () => {
    const open = start(options({ host: '0.0.0.0' }));
    await open.ready;
    open.stop();
    await open.done;
    expect(open.io.err()).toMatch(/listening on 0\.0\.0\.0 \(not loopback\) with the model-repository API unrestricted/);
    // A client could have models read other programs' shared memory of this user, and write into it.
    expect(open.io.err()).toMatch(/with the shared-memory API unrestricted: any client that reaches it can register this user's shared-memory objects/);
    const restriction = new Map([['model-repository' as const, { key: 'admin-key', value: 'x' }], ['shared-memory' as const, { key: 'admin-key', value: 'x' }]]);
    const closed = start(options({ host: '0.0.0.0', httpRestrictions: restriction, grpcRestrictions: restriction }));
    await closed.ready;
    closed.stop();
    await closed.done;
    expect(closed.io.err()).not.toMatch(/unrestricted/);
    const local = start(options());
    await local.ready;
    local.stop();
    await local.done;
    expect(local.io.err()).not.toMatch(/unrestricted/);
    // With a trace file, the trace API too (a client could fill the disk with tensors).
    const traced = start(options({ host: '0.0.0.0', httpRestrictions: restriction, grpcRestrictions: restriction, trace: { mode: 'triton', file: path.join(os.tmpdir(), 'never-written.json'), setting: DEFAULT_TRACE_SETTING, otel: DEFAULT_OTEL_OPTIONS } }));
    await traced.ready;
    traced.stop();
    await traced.done;
    expect(traced.io.err()).toMatch(/with the trace API unrestricted: any client that reaches it can turn tracing on/);
    expect(traced.io.err()).toMatch(/restrict it with --http-restricted-api and --grpc-restricted-protocol trace:<header>=<secret>/);
  });

  it('--rate-limit execution_count makes one rate limiter, hands it to every load, and names its counts at start', async () => {
    const handed: unknown[] = [];
    let stop!: (signal: string) => void;
    const stopped = new Promise<string>((r) => (stop = r));
    const io = memoryIO();
    const done = runServe(options({ rateLimit: { resources: [{ name: 'R', count: 2, device: -1 }] } }), {
      io,
      loadModel: async (_dir, version, config, loadOptions) => {
        handed.push(loadOptions?.rateLimiter);
        return identityFromConfig(config.name!, version, config);
      },
      createSource: (r) => new DiskModelSource(r),
      waitForStop: () => stopped,
      onListening: () => stop('SIGTERM'),
    });
    await done;
    // alpha and beta, with the same limiter (gamma is refused before loading).
    expect(handed).toHaveLength(2);
    expect(handed[0]).toBeDefined();
    expect(handed[1]).toBe(handed[0]);
    expect((handed[0] as { capacities(): unknown }).capacities()).toEqual([]);
    expect(io.err()).toMatch(/rate limiter on \(execution_count\).*none: no model instance names one/);
  });
});
