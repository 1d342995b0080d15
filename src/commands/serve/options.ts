/** `gebe serve` flags → typed, checked options. Every bad value is a UsageError naming the flag. */
import os from 'node:os';
import path from 'node:path';
import type { RateLimitResource } from '../../core/executor/rate-limiter.js';
import { UsageError } from '../../errors.js';
import { DEFAULT_CONFIG_LIMITS, MAX_INSTANCES_CAP } from '../../core/config/limits.js';
import { DEFAULT_LOAD_THREADS, type ControlMode } from '../../core/server/model-manager.js';
import type { LogFormat } from '../../core/server/logger.js';
import { DEFAULT_GRPC_KEEPALIVE, RESPONSE_COMPRESSION_LEVELS, type GrpcKeepalive, type ResponseCompressionLevel } from '../../core/server/grpc/server.js';
import { DEFAULT_HTTP_THREADS, MAX_BUSY_POLL_US, MAX_HTTP_THREADS } from '../../core/server/server.js';
import { DEFAULT_METRICS_INTERVAL_MS } from '../../core/server/cpu-metrics.js';
import { parseRestrictions, type Restriction, type RestrictedApi } from '../../core/server/restricted-api.js';
import { parseTraceConfig, type TraceConfig } from './trace-config.js';
import { givenIgnoredTritonFlags } from './triton-flags.js';
import { latencyMetricsConfig } from './metrics-config.js';
import type { LatencyMetricsConfig } from '../../core/server/latency-metrics.js';
import { checkWritableFile } from './writable-file.js';
import { checkedConfigName } from '../../core/repository/scan.js';

export interface ServeOptions {
  /** The model repository (the first, when --model-repository is given more than once). */
  repository: string;
  /** The others, as tritonserver serves every --model-repository it is given. */
  moreRepositories?: string[];
  host: string;
  /** Triton's --http-address, --grpc-address, --metrics-address; absent: `host`. */
  httpAddress?: string;
  grpcAddress?: string;
  metricsAddress?: string;
  /** Triton's --allow-http, --allow-grpc, --allow-metrics; absent: true. */
  allowHttp?: boolean;
  allowGrpc?: boolean;
  allowMetrics?: boolean;
  /** Triton's --allow-cpu-metrics and --metrics-interval-ms; absent: on, every DEFAULT_METRICS_INTERVAL_MS. */
  cpuMetrics?: { enabled: boolean; intervalMs: number };
  /** Triton's --id: the server's name in its metadata; absent: gebe. */
  serverId?: string;
  /** False with Triton's --disable-auto-complete-config: model.py's auto_complete_config is not run. */
  autoCompleteConfig?: boolean;
  /** Triton's --model-config-name: each model's configs/<name>.pbtxt where it has one, else its config.pbtxt. */
  modelConfigName?: string;
  /** tritonserver flags given that gebe accepts without effect, each with why (triton-flags.ts). */
  ignoredTritonFlags?: string[];
  /** Triton's --metrics-config: which latency metrics; absent: Triton's defaults. */
  latencyMetrics?: LatencyMetricsConfig;
  httpPort: number;
  grpcPort: number;
  metricsPort: number;
  controlMode: ControlMode;
  loadModels: string[];
  pollSeconds: number;
  /** Models loaded at once at start (Triton's --model-load-thread-count). */
  loadThreads?: number;
  /** Triton's --model-load-retry-count. */
  loadRetries?: number;
  /** --rate-limit execution_count, with the --rate-limit-resource counts; absent: off. */
  rateLimit?: { resources: RateLimitResource[] };
  exitOnError: boolean;
  /** As Triton's --strict-readiness: false makes the server ready while some models failed to load. */
  strictReadiness?: boolean;
  exitTimeoutSeconds: number;
  /** As Triton's --log-verbose: above 0, verbose lines (gebe has one level of them). */
  logVerboseLevel: number;
  /** As Triton's --log-info, --log-warning, --log-error (absent: true). */
  logInfo?: boolean;
  logWarning?: boolean;
  logError?: boolean;
  logFormat: LogFormat;
  /** Triton's --log-file (resolved): log lines go there instead of stderr. */
  logFile?: string;
  maxBodyBytes: number;
  /** CONFIG_LIMIT's bound on instances per model. */
  maxInstancesPerModel?: number;
  /** native (default) or node. */
  httpFrontend?: 'native' | 'node';
  /** Undefined: the default of limits.ts. */
  maxInflightBodyBytes?: number;
  /** Undefined: sized from the open-file limit at start. */
  maxConnections?: number;
  /** Undefined: the server's default (DEFAULT_BUSY_POLL_US). */
  busyPollUs?: number;
  /** Triton's --http-thread-count: the native HTTP front end's loop threads. */
  httpThreads?: number;
  /** --grpc-keepalive-* and --grpc-http2-*; undefined: DEFAULT_GRPC_KEEPALIVE. */
  grpcKeepalive?: GrpcKeepalive;
  /** Triton's --grpc-infer-response-compression-level. */
  grpcResponseCompression?: ResponseCompressionLevel;
  httpRestrictions?: Map<RestrictedApi, Restriction>;
  grpcRestrictions?: Map<RestrictedApi, Restriction>;
  /** Triton's --http-header-forward-pattern and --grpc-header-forward-pattern. */
  httpHeaderForwardPattern?: RegExp;
  grpcHeaderForwardPattern?: RegExp;
  /** Triton's --trace-config: the trace file and the global trace setting at start (absent: no file, level OFF). */
  trace?: TraceConfig;
  /** Triton's --cache-config local,size=<bytes>: the response cache's size; absent: no cache. */
  responseCacheBytes?: number;
  /** Paths (resolved) of the PEM files. */
  httpTls?: { cert: string; key: string };
  grpcTls?: { cert: string; key: string; rootCert?: string; mutual: boolean };
}

/** What commander hands the action (strings as typed by the user). */
export interface ServeFlags {
  /** Repeatable, as Triton's (commander collects them; a string where one is set directly). */
  modelRepository?: string | string[];
  host: string;
  httpPort: string;
  grpcPort: string;
  metricsPort: string;
  modelControlMode: string;
  loadModel: string[];
  repositoryPollSecs: string;
  modelLoadThreadCount?: string;
  modelLoadRetryCount?: string;
  rateLimit?: string;
  rateLimitResource?: string[];
  /** Triton's optional boolean (--exit-on-error=false); absent: false (gebe serves the models that load). */
  exitOnError?: boolean | string;
  strictReadiness?: boolean | string;
  allowHttp?: boolean | string;
  allowGrpc?: boolean | string;
  allowMetrics?: boolean | string;
  allowCpuMetrics?: boolean | string;
  metricsIntervalMs?: string;
  metricsConfig?: string[];
  httpAddress?: string;
  grpcAddress?: string;
  metricsAddress?: string;
  id?: string;
  disableAutoCompleteConfig?: boolean;
  modelConfigName?: string;
  exitTimeoutSecs: string;
  logVerbose?: boolean | string;
  logInfo?: boolean | string;
  logWarning?: boolean | string;
  logError?: boolean | string;
  logFormat: string;
  logFile?: string;
  httpMaxBody: string;
  maxInstancesPerModel?: string;
  /** native (default) or node. */
  httpFrontend?: string;
  httpMaxInflightBody?: string;
  maxConnections?: string;
  busyPollUs?: string;
  httpThreadCount?: string;
  grpcKeepaliveTime?: string;
  grpcInferResponseCompressionLevel?: string;
  grpcKeepaliveTimeout?: string;
  grpcKeepalivePermitWithoutCalls?: boolean | string;
  grpcHttp2MaxPingsWithoutData?: string;
  grpcHttp2MinRecvPingIntervalWithoutData?: string;
  grpcHttp2MaxPingStrikes?: string;
  httpRestrictedApi?: string[];
  grpcRestrictedProtocol?: string[];
  httpHeaderForwardPattern?: string;
  grpcHeaderForwardPattern?: string;
  traceConfig?: string[];
  /** Triton's older (deprecated) trace flags, each one --trace-config setting. */
  traceFile?: string;
  traceLevel?: string[];
  traceRate?: string;
  traceCount?: string;
  traceLogFrequency?: string;
  cacheConfig?: string[];
  /** Triton's older spelling of --cache-config local,size=<bytes>. */
  responseCacheByteSize?: string;
  httpUseSsl?: boolean | string;
  httpServerCert?: string;
  httpServerKey?: string;
  grpcUseSsl?: boolean | string;
  grpcUseSslMutual?: boolean | string;
  grpcServerCert?: string;
  grpcServerKey?: string;
  grpcRootCert?: string;
}

/** Triton's older trace flags (--trace-file, --trace-level, ...) as the --trace-config settings they stand for. */
function olderTraceFlags(flags: ServeFlags): string[] {
  return [
    ...(flags.traceFile !== undefined ? [`triton,file=${flags.traceFile}`] : []),
    ...(flags.traceLevel ?? []).map((level) => `level=${level}`),
    ...(flags.traceRate !== undefined ? [`rate=${flags.traceRate}`] : []),
    ...(flags.traceCount !== undefined ? [`count=${flags.traceCount}`] : []),
    ...(flags.traceLogFrequency !== undefined ? [`triton,log-frequency=${flags.traceLogFrequency}`] : []),
  ];
}

/** Triton's boolean flags take an optional value: --grpc-use-ssl, --grpc-use-ssl=true, =false. */
/** A header-forward pattern: a regular expression matched anywhere in a header's name (as Triton's RE2 PartialMatch). */
function forwardPattern(text: string | undefined, flag: string): RegExp | undefined {
  if (text === undefined) return undefined;
  if (text === '') throw new UsageError(`${flag} takes a regular expression, got ''`);
  try {
    return new RegExp(text);
  } catch (err) {
    throw new UsageError(`${flag} '${text}' is not a regular expression: ${(err as Error).message}`);
  }
}

/** --log-format's values: gebe's two, and Triton's (its default and ISO8601 lines are gebe's text lines). */
const LOG_FORMATS: Record<string, LogFormat> = { text: 'text', json: 'json', default: 'text', ISO8601: 'text' };

/** --log-verbose: bare (1), or Triton's level (--log-verbose=1); 0 or absent, no verbose lines. */
function verboseLevel(value: boolean | string | undefined): number {
  if (value === undefined || value === false) return 0;
  if (value === true) return 1;
  if (!/^\d{1,10}$/.test(value) || Number(value) > 0xffffffff) {
    throw new UsageError(`--log-verbose takes a level (0, 1, ...), got '${value}'`, 'a repository right after a bare --log-verbose is read as its level: write --log-verbose=1, or put the repository first');
  }
  return Number(value);
}

function flagBool(value: boolean | string | undefined, flag: string): boolean {
  if (value === undefined || value === false) return false;
  if (value === true || value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new UsageError(`${flag} takes true or false, got '${value}'`);
}

/** Triton's --log-file: checked now, since serve opens it only once it has parsed everything. */
function logFile(value: string | undefined, cwd: string): string | undefined {
  if (value === undefined) return undefined;
  if (value === '') throw new UsageError('--log-file needs a path', 'or leave it out to log to stderr');
  const file = path.resolve(cwd, value);
  checkWritableFile(file, `--log-file ${file}`, 'gebe.log');
  return file;
}

/** An optional Triton boolean that defaults to true: absent or bare, true. */
function allowed(value: boolean | string | undefined, flag: string): boolean {
  return value === undefined || flagBool(value, flag);
}

/**
 * The tritonserver flags that came with Triton's command line: which listeners run and where, the
 * server's name, the CPU metrics, auto-complete, custom configs, and those gebe accepts without effect.
 */
/** --model-load-retry-count is bounded: a model that fails to load this often will not load. */
const MAX_LOAD_RETRIES = 100;

/** Triton's --grpc-infer-response-compression-level: none (default), low, medium or high. */
function responseCompression(value: string | undefined): ResponseCompressionLevel {
  const level = (value ?? 'none').toLowerCase();
  if (!(RESPONSE_COMPRESSION_LEVELS as readonly string[]).includes(level)) {
    throw new UsageError(`--grpc-infer-response-compression-level must be one of ${RESPONSE_COMPRESSION_LEVELS.join(', ')}, got '${value}'`);
  }
  return level as ResponseCompressionLevel;
}

function tritonServerOptions(flags: ServeFlags) {
  const allowHttp = allowed(flags.allowHttp, '--allow-http');
  const allowGrpc = allowed(flags.allowGrpc, '--allow-grpc');
  if (!allowHttp && !allowGrpc) {
    throw new UsageError('--allow-http false and --allow-grpc false leave no way to send the server a request', 'allow one of them');
  }
  const address = (value: string | undefined, flag: string) => {
    if (value === '') throw new UsageError(`${flag} needs an address, e.g. 0.0.0.0 or 127.0.0.1`);
    return value;
  };
  const interval = flags.metricsIntervalMs ?? String(DEFAULT_METRICS_INTERVAL_MS);
  if (!/^[0-9]+$/.test(interval) || Number(interval) < 100 || Number(interval) > 3_600_000) {
    throw new UsageError(`--metrics-interval-ms must be a whole number of milliseconds from 100 to 3600000, got '${interval}'`);
  }
  if (flags.id === '') throw new UsageError('--id needs a name');
  const metrics = latencyMetricsConfig(flags.metricsConfig ?? []);
  const limiter = rateLimit(flags);
  return {
    allowHttp, allowGrpc, allowMetrics: allowed(flags.allowMetrics, '--allow-metrics'),
    httpAddress: address(flags.httpAddress, '--http-address'),
    grpcAddress: address(flags.grpcAddress, '--grpc-address'),
    metricsAddress: address(flags.metricsAddress, '--metrics-address'),
    cpuMetrics: { enabled: allowed(flags.allowCpuMetrics, '--allow-cpu-metrics'), intervalMs: Number(interval) },
    serverId: flags.id,
    autoCompleteConfig: flags.disableAutoCompleteConfig !== true,
    modelConfigName: flags.modelConfigName === undefined ? undefined : checkedConfigName(flags.modelConfigName),
    ignoredTritonFlags: [...givenIgnoredTritonFlags(flags), ...metrics.ignored, ...limiter.ignored],
    latencyMetrics: metrics.config,
    ...(limiter.rateLimit ? { rateLimit: limiter.rateLimit } : {}),
  };
}

/**
 * Triton's --rate-limit (off or execution_count) and --rate-limit-resource name:count[:device]
 * (repeatable). Counts given while the limiter is off change nothing, as in Triton; serve says so.
 */
function rateLimit(flags: ServeFlags): { rateLimit?: { resources: RateLimitResource[] }; ignored: string[] } {
  const mode = flags.rateLimit ?? 'off';
  if (mode !== 'off' && mode !== 'execution_count') {
    throw new UsageError(`--rate-limit must be off or execution_count, got '${mode}'`);
  }
  const resources = (flags.rateLimitResource ?? []).map((spec) => {
    const m = /^([^:]+):([0-9]+)(?::([0-9]+))?$/.exec(spec);
    if (!m || Number(m[2]) > 2 ** 31 - 1 || Number(m[3] ?? 0) > 2 ** 31 - 1) {
      throw new UsageError(`--rate-limit-resource must be <name>:<count> or <name>:<count>:<device>, with whole numbers, got '${spec}'`, 'e.g. --rate-limit-resource R1:4 (every device) or R1:4:0 (device 0)');
    }
    return { name: m[1]!, count: Number(m[2]), device: m[3] === undefined ? -1 : Number(m[3]) };
  });
  if (mode === 'off') return { ignored: resources.length > 0 ? ['--rate-limit-resource (the rate limiter is off: add --rate-limit execution_count)'] : [] };
  return { rateLimit: { resources }, ignored: [] };
}

/**
 * Triton's --cache-config <cache>,<setting>=<value> (repeatable) and its older
 * --response-cache-byte-size: gebe has Triton's `local` cache, whose one setting is its size.
 */
function responseCacheBytes(flags: ServeFlags): number | undefined {
  let size: number | undefined;
  const older = flags.responseCacheByteSize;
  // As Triton's, whose default it is, 0 means no cache.
  if (older !== undefined && older.trim() !== '0') size = parseSize(older, '--response-cache-byte-size');
  for (const spec of flags.cacheConfig ?? []) {
    const m = /^([a-z_]+),([a-z_]+)=(.*)$/.exec(spec);
    if (!m) throw new UsageError(`--cache-config must be <cache>,<setting>=<value>, got '${spec}'`, 'for example --cache-config local,size=1048576');
    const [, cache, setting, value] = m as unknown as [string, string, string, string];
    if (cache !== 'local') throw new UsageError(`--cache-config '${spec}': gebe has Triton's local cache only (in the server's memory), not '${cache}'`, 'use --cache-config local,size=<bytes>');
    if (setting !== 'size') throw new UsageError(`--cache-config '${spec}': the local cache has one setting, size`, 'use --cache-config local,size=<bytes>');
    size = parseSize(value, '--cache-config local,size');
  }
  if (size !== undefined && size > os.totalmem()) {
    throw new UsageError(`a response cache of ${size} bytes is more than this machine's memory (${os.totalmem()} bytes)`, 'give the cache a part of the memory, e.g. --cache-config local,size=256MiB');
  }
  return size;
}

function tlsOptions(flags: ServeFlags, cwd: string) {
  const file = (value: string | undefined) => (value === undefined ? undefined : path.resolve(cwd, value));
  let httpTls: ServeOptions['httpTls'];
  if (flagBool(flags.httpUseSsl, '--http-use-ssl')) {
    if (!flags.httpServerCert || !flags.httpServerKey) throw new UsageError('--http-use-ssl needs --http-server-cert and --http-server-key', 'give the PEM files of the certificate and its private key');
    httpTls = { cert: file(flags.httpServerCert)!, key: file(flags.httpServerKey)! };
  } else if (flags.httpServerCert || flags.httpServerKey) {
    throw new UsageError('--http-server-cert and --http-server-key only apply with --http-use-ssl', 'add --http-use-ssl');
  }
  let grpcTls: ServeOptions['grpcTls'];
  const mutual = flagBool(flags.grpcUseSslMutual, '--grpc-use-ssl-mutual');
  if (flagBool(flags.grpcUseSsl, '--grpc-use-ssl') || mutual) {
    if (!flags.grpcServerCert || !flags.grpcServerKey) throw new UsageError('--grpc-use-ssl needs --grpc-server-cert and --grpc-server-key', 'give the PEM files of the certificate and its private key');
    if (mutual && !flags.grpcRootCert) throw new UsageError('--grpc-use-ssl-mutual needs --grpc-root-cert', 'give the PEM file of the CA that signs the client certificates');
    grpcTls = { cert: file(flags.grpcServerCert)!, key: file(flags.grpcServerKey)!, rootCert: file(flags.grpcRootCert), mutual };
  } else if (flags.grpcServerCert || flags.grpcServerKey || flags.grpcRootCert) {
    throw new UsageError('--grpc-server-cert, --grpc-server-key and --grpc-root-cert only apply with --grpc-use-ssl', 'add --grpc-use-ssl');
  }
  return { httpTls, grpcTls };
}

function port(value: string, flag: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n > 65535) throw new UsageError(`${flag} must be a port number from 0 to 65535, got '${value}'`, `0 picks any free port`);
  return n;
}

function seconds(value: string, flag: string, min: number): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min) throw new UsageError(`${flag} must be a number of seconds >= ${min}, got '${value}'`);
  return n;
}

function count(value: string, flag: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n < 1 || !Number.isSafeInteger(n)) throw new UsageError(`${flag} must be a whole number >= 1, got '${value}'`);
  return n;
}

/** A whole number from `min` to `max` (by default 2^31 - 1: gRPC core takes its settings as C ints). */
function whole(value: string | undefined, fallback: number, flag: string, min: number, max = 2 ** 31 - 1): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got '${value}'`);
  return n;
}

function keepalive(flags: ServeFlags): GrpcKeepalive {
  const d = DEFAULT_GRPC_KEEPALIVE;
  return {
    timeMs: whole(flags.grpcKeepaliveTime, d.timeMs, '--grpc-keepalive-time', 1),
    timeoutMs: whole(flags.grpcKeepaliveTimeout, d.timeoutMs, '--grpc-keepalive-timeout', 1),
    permitWithoutCalls: flagBool(flags.grpcKeepalivePermitWithoutCalls, '--grpc-keepalive-permit-without-calls'),
    maxPingsWithoutData: whole(flags.grpcHttp2MaxPingsWithoutData, d.maxPingsWithoutData, '--grpc-http2-max-pings-without-data', 0),
    minRecvPingIntervalWithoutDataMs: whole(flags.grpcHttp2MinRecvPingIntervalWithoutData, d.minRecvPingIntervalWithoutDataMs, '--grpc-http2-min-recv-ping-interval-without-data', 0),
    maxPingStrikes: whole(flags.grpcHttp2MaxPingStrikes, d.maxPingStrikes, '--grpc-http2-max-ping-strikes', 0),
  };
}

function busyPoll(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n > MAX_BUSY_POLL_US) throw new UsageError(`--busy-poll-us must be a whole number of microseconds from 0 to ${MAX_BUSY_POLL_US}, got '${value}'`, '0 makes the loops sleep at once');
  return n;
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3 };

/** Sizes as bytes or with a unit: 1048576, 512KiB, 64MiB, 1G. */
export function parseSize(value: string, flag: string): number {
  const m = /^([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)$/.exec(value.trim());
  const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined || Number(m[1]) <= 0) {
    throw new UsageError(`${flag} must be a size such as 67108864, 512KiB or 64MiB, got '${value}'`);
  }
  return Math.floor(Number(m[1]) * unit);
}

/**
 * Triton's --http-thread-count. Only the native front end has loop threads: with node:http
 * (--http-frontend node, or --http-use-ssl) the flag is accepted, as on a Triton command line,
 * and named at start with why it changes nothing.
 */
function httpThreads(flags: ServeFlags, nativeFrontend: boolean): { httpThreads: number; ignored: string[] } {
  const threads = whole(flags.httpThreadCount, DEFAULT_HTTP_THREADS, '--http-thread-count', 1, MAX_HTTP_THREADS);
  if (flags.httpThreadCount === undefined || nativeFrontend) return { httpThreads: threads, ignored: [] };
  return { httpThreads: DEFAULT_HTTP_THREADS, ignored: ['--http-thread-count (node:http serves HTTP on node\'s one thread: the native front end has the loop threads)'] };
}

function instanceLimit(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n < 1 || n > MAX_INSTANCES_CAP) {
    throw new UsageError(`--max-instances-per-model must be a whole number from 1 to ${MAX_INSTANCES_CAP}, got '${value}'`);
  }
  return n;
}

export function resolveServeOptions(repoArg: string | undefined, flags: ServeFlags, cwd: string): ServeOptions {
  const flagged = [...new Set((typeof flags.modelRepository === 'string' ? [flags.modelRepository] : flags.modelRepository ?? []).map((r) => path.resolve(cwd, r)))];
  if (repoArg && flagged.length > 0 && !flagged.includes(path.resolve(cwd, repoArg))) {
    throw new UsageError(`two repositories given: '${repoArg}' and --model-repository '${[flags.modelRepository].flat()[0]}'`, 'give the repository once, or every repository with --model-repository');
  }
  const repositories = flagged.length > 0 ? flagged : [path.resolve(cwd, repoArg ?? 'model_repository')];
  const mode = flags.modelControlMode;
  if (mode !== 'none' && mode !== 'poll' && mode !== 'explicit') {
    throw new UsageError(`--model-control-mode must be none, poll or explicit, got '${mode}'`);
  }
  const logFormat = LOG_FORMATS[flags.logFormat];
  if (!Object.hasOwn(LOG_FORMATS, flags.logFormat) || !logFormat) {
    throw new UsageError(`--log-format must be text or json (or Triton's default or ISO8601: text), got '${flags.logFormat}'`);
  }
  const httpFrontend = flags.httpFrontend ?? 'native';
  if (httpFrontend !== 'native' && httpFrontend !== 'node') {
    throw new UsageError(`--http-frontend must be native or node, got '${httpFrontend}'`);
  }
  if (flags.loadModel.length > 0 && mode !== 'explicit') {
    throw new UsageError('--load-model only applies with --model-control-mode explicit', 'add --model-control-mode explicit, or drop --load-model to load every model');
  }
  const tls = tlsOptions(flags, cwd);
  const threads = httpThreads(flags, httpFrontend === 'native' && !tls.httpTls);
  const triton = tritonServerOptions(flags);
  const ports = { http: port(flags.httpPort, '--http-port'), grpc: port(flags.grpcPort, '--grpc-port'), metrics: port(flags.metricsPort, '--metrics-port') };
  const fixed = Object.entries(ports).filter(([, p]) => p !== 0);
  for (let i = 0; i < fixed.length; i++) {
    for (let j = i + 1; j < fixed.length; j++) {
      if (fixed[i]![1] === fixed[j]![1]) throw new UsageError(`--${fixed[i]![0]}-port and --${fixed[j]![0]}-port are both ${fixed[i]![1]}`, 'give each listener its own port');
    }
  }
  return {
    repository: repositories[0]!,
    ...(repositories.length > 1 ? { moreRepositories: repositories.slice(1) } : {}),
    host: flags.host,
    httpPort: ports.http,
    grpcPort: ports.grpc,
    metricsPort: ports.metrics,
    controlMode: mode,
    loadModels: flags.loadModel,
    pollSeconds: seconds(flags.repositoryPollSecs, '--repository-poll-secs', 0.1),
    loadThreads: whole(flags.modelLoadThreadCount, DEFAULT_LOAD_THREADS, '--model-load-thread-count', 1),
    loadRetries: whole(flags.modelLoadRetryCount, 0, '--model-load-retry-count', 0, MAX_LOAD_RETRIES),
    exitOnError: flagBool(flags.exitOnError, '--exit-on-error'),
    strictReadiness: flags.strictReadiness === undefined ? true : flagBool(flags.strictReadiness, '--strict-readiness'),
    ...triton,
    ignoredTritonFlags: [...triton.ignoredTritonFlags, ...threads.ignored],
    exitTimeoutSeconds: seconds(flags.exitTimeoutSecs, '--exit-timeout-secs', 0),
    logVerboseLevel: verboseLevel(flags.logVerbose),
    logInfo: flagBool(flags.logInfo ?? true, '--log-info'),
    logWarning: flagBool(flags.logWarning ?? true, '--log-warning'),
    logError: flagBool(flags.logError ?? true, '--log-error'),
    logFormat,
    logFile: logFile(flags.logFile, cwd),
    maxBodyBytes: parseSize(flags.httpMaxBody, '--http-max-body'),
    maxInstancesPerModel: instanceLimit(flags.maxInstancesPerModel ?? String(DEFAULT_CONFIG_LIMITS.instancesPerModel)),
    httpFrontend,
    maxInflightBodyBytes: flags.httpMaxInflightBody !== undefined ? parseSize(flags.httpMaxInflightBody, '--http-max-inflight-body') : undefined,
    maxConnections: flags.maxConnections !== undefined ? count(flags.maxConnections, '--max-connections') : undefined,
    busyPollUs: flags.busyPollUs !== undefined ? busyPoll(flags.busyPollUs) : undefined,
    httpThreads: threads.httpThreads,
    grpcKeepalive: keepalive(flags),
    grpcResponseCompression: responseCompression(flags.grpcInferResponseCompressionLevel),
    httpRestrictions: parseRestrictions(flags.httpRestrictedApi ?? [], '--http-restricted-api'),
    grpcRestrictions: parseRestrictions(flags.grpcRestrictedProtocol ?? [], '--grpc-restricted-protocol'),
    httpHeaderForwardPattern: forwardPattern(flags.httpHeaderForwardPattern, '--http-header-forward-pattern'),
    grpcHeaderForwardPattern: forwardPattern(flags.grpcHeaderForwardPattern, '--grpc-header-forward-pattern'),
    trace: parseTraceConfig([...olderTraceFlags(flags), ...(flags.traceConfig ?? [])], cwd),
    responseCacheBytes: responseCacheBytes(flags),
    ...tls,
  };
}
