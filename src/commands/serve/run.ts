/**
 * `gebe serve` itself: load the repository, open the listeners, print the start-up report, run until
 * SIGINT/SIGTERM, then stop gracefully. Streams, the model loader, the repository reader and the
 * stop signal are injected so tests drive it in-process on port 0.
 */
import { closeSync, existsSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { Writable } from 'node:stream';
import { isIP } from 'node:net';
import { createRateLimiter } from '../../core/executor/rate-limiter.js';
import { GebeError } from '../../errors.js';
import type { IO } from '../../io.js';
import type { ConfigLimits } from '../../core/config/limits.js';
import { createLogger } from '../../core/server/logger.js';
import { ModelManager, type LoadModelFn } from '../../core/server/model-manager.js';
import { ResponseCache } from '../../core/server/response-cache.js';
import { RepositoriesSource } from '../../core/server/repositories-source.js';
import type { ModelSource } from '../../core/server/model-source.js';
import { GebeServer, type ServerPorts } from '../../core/server/server.js';
import { raiseFdLimit } from '../../core/server/http/native-http-addon.js';
import { defaultMaxConnections } from '../../core/server/limits.js';
import { DEFAULT_TRACE_SETTING } from '../../core/server/trace-settings.js';
import { DEFAULT_METRICS_INTERVAL_MS } from '../../core/server/cpu-metrics.js';
import type { Logger } from '../../core/server/logger.js';
import type { ServeOptions } from './options.js';
import { endpointLines, modelTable } from './table.js';

export interface ServeDeps {
  io: IO;
  loadModel: LoadModelFn;
  /** `configName`: Triton's --model-config-name (each model's configs/<name>.pbtxt where it has one). */
  createSource(repository: string, limits?: Partial<ConfigLimits>, configName?: string): ModelSource;
  /** Resolves with the signal name when the server should stop. */
  waitForStop(): Promise<string>;
  /** Called once the server listens (tests use it to find the ports). */
  onListening?(server: GebeServer, ports: ServerPorts): void;
}

/** Resolves on the first SIGINT or SIGTERM. */
export function processStopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
      resolve(signal);
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  });
}

export async function runServe(opts: ServeOptions, deps: ServeDeps): Promise<void> {
  const repositories = [opts.repository, ...(opts.moreRepositories ?? [])];
  for (const repository of repositories) {
    if (!existsSync(repository) || !statSync(repository).isDirectory()) {
      throw new GebeError(`model repository '${repository}' does not exist or is not a directory`, {
        hint: 'pass the repository path (gebe serve ./model_repository), or create one with `gebe init <model_name>`',
      });
    }
  }
  const log = opts.logFile ? createLogger(appendingFile(opts.logFile, deps.io.stderr), opts.logFormat, false, undefined, opts.logFile) : createLogger(deps.io.stderr, opts.logFormat);
  log.control!.set({ verboseLevel: opts.logVerboseLevel, info: opts.logInfo ?? true, warning: opts.logWarning ?? true, error: opts.logError ?? true });
  const stop = deps.waitForStop();
  const sources = repositories.map((r) => deps.createSource(r, { instancesPerModel: opts.maxInstancesPerModel }, opts.modelConfigName));
  const source = sources.length === 1 ? sources[0]! : new RepositoriesSource(sources, repositories);
  const manager = new ModelManager(source, deps.loadModel, log, opts.controlMode);
  if (opts.responseCacheBytes !== undefined) manager.responseCache = new ResponseCache(opts.responseCacheBytes);
  manager.autoCompleteConfig = opts.autoCompleteConfig ?? true;
  if (opts.loadThreads !== undefined) manager.loadThreads = opts.loadThreads;
  if (opts.loadRetries !== undefined) manager.loadRetries = opts.loadRetries;
  if (opts.latencyMetrics) manager.latencyMetrics = opts.latencyMetrics;
  if (opts.rateLimit) manager.rateLimiter = createRateLimiter(opts.rateLimit.resources);
  if (opts.ignoredTritonFlags?.length) {
    log.warn('Triton flags that gebe serve accepts without effect', { flags: opts.ignoredTritonFlags.join('; ') });
  }
  log.info('loading model repository', { repository: repositories.join(', '), mode: opts.controlMode });
  // A signal during start-up (a slow repository, a slow model) stops it there.
  const early = await Promise.race([manager.start(opts.loadModels).then(() => undefined), stop]);
  if (early !== undefined) {
    log.info('received signal during start-up, stopping', { signal: early });
    await manager.stop();
    return;
  }
  const statuses = manager.statuses();
  deps.io.stdout.write(modelTable(statuses));
  if (manager.rateLimiter) {
    const copies = manager.rateLimiter.capacities().map(([resource, count]) => `${resource}=${count}`).join(', ');
    log.info('rate limiter on (execution_count)', { resources: copies || 'none: no model instance names one' });
  }
  const failed = statuses.filter((s) => s.state !== 'READY');
  if (opts.exitOnError && failed.length > 0) {
    const reasons = failed.map((f) => `${f.name}${f.version ? ` v${f.version}` : ''}: ${f.reason}`).join('; ');
    await manager.stop();
    throw new GebeError(`${failed.length} model version(s) failed to load and --exit-on-error is set: ${reasons}`, {
      hint: 'run `gebe validate` on the repository for details, or drop --exit-on-error to serve the models that load',
    });
  }
  const fdLimit = raiseFdLimit();
  warnIfExposed(opts, log);
  const hosts = listenerHosts(opts);
  const server = new GebeServer(manager, {
    host: opts.host, httpHost: hosts.http, grpcHost: hosts.grpc, metricsHost: hosts.metrics,
    enableHttp: opts.allowHttp, enableGrpc: opts.allowGrpc, enableMetrics: opts.allowMetrics, serverId: opts.serverId,
    cpuMetricsIntervalMs: opts.cpuMetrics?.enabled === false ? undefined : (opts.cpuMetrics?.intervalMs ?? DEFAULT_METRICS_INTERVAL_MS),
    httpPort: opts.httpPort, grpcPort: opts.grpcPort, metricsPort: opts.metricsPort, maxBodyBytes: opts.maxBodyBytes,
    httpFrontend: opts.httpFrontend, maxInflightBodyBytes: opts.maxInflightBodyBytes,
    maxConnections: opts.maxConnections ?? defaultMaxConnections(fdLimit), strictReadiness: opts.strictReadiness, busyPollUs: opts.busyPollUs,
    httpThreads: opts.httpThreads,
    grpcKeepalive: opts.grpcKeepalive,
    grpcResponseCompression: opts.grpcResponseCompression,
    httpRestrictions: opts.httpRestrictions, grpcRestrictions: opts.grpcRestrictions,
    httpHeaderForwardPattern: opts.httpHeaderForwardPattern, grpcHeaderForwardPattern: opts.grpcHeaderForwardPattern,
    trace: opts.trace ?? { file: '', setting: DEFAULT_TRACE_SETTING },
    httpTls: opts.httpTls && { cert: pem(opts.httpTls.cert, '--http-server-cert'), key: pem(opts.httpTls.key, '--http-server-key') },
    grpcTls: opts.grpcTls && {
      cert: pem(opts.grpcTls.cert, '--grpc-server-cert'), key: pem(opts.grpcTls.key, '--grpc-server-key'),
      rootCert: opts.grpcTls.rootCert !== undefined ? pem(opts.grpcTls.rootCert, '--grpc-root-cert') : undefined, mutual: opts.grpcTls.mutual,
    },
  }, log);
  let ports: ServerPorts;
  try {
    ports = await server.listen();
  } catch (err) {
    await server.stop(0);
    throw listenError(err, opts);
  }
  deps.io.stdout.write(endpointLines(hosts, ports));
  log.info('server started', { http: ports.http, grpc: ports.grpc, metrics: ports.metrics });
  if (opts.controlMode === 'poll') manager.startPolling(opts.pollSeconds);
  deps.onListening?.(server, ports);
  const signal = await stop;
  // The handler is gone now, so a second signal ends the process at once (Node's default).
  log.info('received signal, stopping (send it again to stop at once)', { signal });
  await server.stop(opts.exitTimeoutSeconds * 1000);
}

/**
 * Triton's --log-file, appended to: each line is written before the call that logs it returns, so
 * none is lost when the process ends. A line the file cannot take (a full disk) goes to `fallback`
 * (stderr) with the reason, once, rather than failing the server.
 */
function appendingFile(file: string, fallback: IO['stderr']): Writable {
  let fd: number;
  try {
    fd = openSync(file, 'a');
  } catch (err) {
    throw new GebeError(`--log-file '${file}' cannot be opened: ${(err as Error).message}`, { hint: 'name a file this user can write' });
  }
  let failed = false;
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      try {
        if (!failed) writeSync(fd, chunk);
      } catch (err) {
        failed = true;
        fallback.write(`gebe: --log-file '${file}' cannot be written (${(err as Error).message}); logging to stderr from here\n`);
      }
      if (failed) fallback.write(chunk.toString());
      done();
    },
    final(done) {
      closeSync(fd);
      done();
    },
  });
}

function pem(file: string, flag: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new GebeError(`${flag} '${file}' cannot be read: ${(err as Error).message}`, { hint: 'give the path of a PEM file' });
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

/** The APIs a client on another host should not reach unrestricted, and what it could do with them. */
const EXPOSED_APIS = [
  { api: 'model-repository', does: 'load and unload models', applies: () => true },
  // A region is any shared-memory object of the user gebe runs as (another program's included):
  // a request can have a model read it, and write its outputs there.
  { api: 'shared-memory', does: 'register this user\'s shared-memory objects and have models read them and write outputs into them', applies: () => true },
  // Only with somewhere for traces to go (a trace file, or the OpenTelemetry receiver): else tracing cannot be turned on.
  { api: 'trace', does: 'turn tracing on, writing to the trace file (at level TENSORS every traced request\'s tensors) or sending spans to the OpenTelemetry receiver',
    applies: (o: ServeOptions) => Boolean(o.trace?.file) || o.trace?.mode === 'opentelemetry' },
] as const;

/** Where each listener listens: its own address (Triton's --http-address, ...) or --host. */
function listenerHosts(opts: ServeOptions): { http: string; grpc: string; metrics: string } {
  return { http: opts.httpAddress ?? opts.host, grpc: opts.grpcAddress ?? opts.host, metrics: opts.metricsAddress ?? opts.host };
}

function warnIfExposed(opts: ServeOptions, log: Logger): void {
  const hosts = listenerHosts(opts);
  // The APIs are on the HTTP and gRPC listeners (the metrics listener answers only GET /metrics).
  const exposed = [opts.allowHttp !== false && hosts.http, opts.allowGrpc !== false && hosts.grpc].find((h) => h && !isLoopback(h));
  if (!exposed) return;
  for (const { api, does, applies } of EXPOSED_APIS) {
    if (!applies(opts)) continue;
    const open = [
      !opts.httpRestrictions?.has(api) && '--http-restricted-api',
      !opts.grpcRestrictions?.has(api) && '--grpc-restricted-protocol',
    ].filter(Boolean);
    if (open.length > 0) {
      log.warn(`listening on ${exposed} (not loopback) with the ${api} API unrestricted: any client that reaches it can ${does}`, {
        hint: `restrict it with ${open.join(' and ')} ${api}:<header>=<secret>`,
      });
    }
  }
}

function listenError(err: unknown, opts: ServeOptions): GebeError {
  const e = err as NodeJS.ErrnoException;
  const message = e?.message ?? String(err);
  if (e?.code === 'EADDRINUSE' || /address already in use|No address added out of total/i.test(message)) {
    return new GebeError(`a port is already in use on ${opts.host} (HTTP ${opts.httpPort}, gRPC ${opts.grpcPort}, metrics ${opts.metricsPort}): ${message}`, {
      hint: 'stop the other server, or choose ports with --http-port/--grpc-port/--metrics-port (0 picks a free port)',
      cause: err,
    });
  }
  if (e?.code === 'EADDRNOTAVAIL' || e?.code === 'ENOTFOUND') {
    return new GebeError(`cannot listen on host '${opts.host}': ${message}`, { hint: 'use 127.0.0.1 (local) or 0.0.0.0 (all interfaces)', cause: err });
  }
  return new GebeError(`the server could not start: ${message}`, { cause: err });
}
