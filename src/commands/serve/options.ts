/** `gebe serve` flags → typed, checked options. Every bad value is a UsageError naming the flag. */
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { DEFAULT_CONFIG_LIMITS, MAX_INSTANCES_CAP } from '../../core/config/limits.js';
import type { ControlMode } from '../../core/server/model-manager.js';
import type { LogFormat } from '../../core/server/logger.js';

export interface ServeOptions {
  repository: string;
  host: string;
  httpPort: number;
  grpcPort: number;
  metricsPort: number;
  controlMode: ControlMode;
  loadModels: string[];
  pollSeconds: number;
  exitOnError: boolean;
  exitTimeoutSeconds: number;
  logVerbose: boolean;
  logFormat: LogFormat;
  maxBodyBytes: number;
  /** CONFIG_LIMIT's bound on instances per model. */
  maxInstancesPerModel?: number;
  /** native (default) or node. */
  httpFrontend?: 'native' | 'node';
}

/** What commander hands the action (strings as typed by the user). */
export interface ServeFlags {
  modelRepository?: string;
  host: string;
  httpPort: string;
  grpcPort: string;
  metricsPort: string;
  modelControlMode: string;
  loadModel: string[];
  repositoryPollSecs: string;
  exitOnError: boolean;
  exitTimeoutSecs: string;
  logVerbose: boolean;
  logFormat: string;
  httpMaxBody: string;
  maxInstancesPerModel?: string;
  /** native (default) or node. */
  httpFrontend?: string;
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

function instanceLimit(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n < 1 || n > MAX_INSTANCES_CAP) {
    throw new UsageError(`--max-instances-per-model must be a whole number from 1 to ${MAX_INSTANCES_CAP}, got '${value}'`);
  }
  return n;
}

export function resolveServeOptions(repoArg: string | undefined, flags: ServeFlags, cwd: string): ServeOptions {
  if (repoArg && flags.modelRepository && path.resolve(cwd, repoArg) !== path.resolve(cwd, flags.modelRepository)) {
    throw new UsageError(`two repositories given: '${repoArg}' and --model-repository '${flags.modelRepository}'`, 'give the repository once');
  }
  const mode = flags.modelControlMode;
  if (mode !== 'none' && mode !== 'poll' && mode !== 'explicit') {
    throw new UsageError(`--model-control-mode must be none, poll or explicit, got '${mode}'`);
  }
  if (flags.logFormat !== 'text' && flags.logFormat !== 'json') {
    throw new UsageError(`--log-format must be text or json, got '${flags.logFormat}'`);
  }
  const httpFrontend = flags.httpFrontend ?? 'native';
  if (httpFrontend !== 'native' && httpFrontend !== 'node') {
    throw new UsageError(`--http-frontend must be native or node, got '${httpFrontend}'`);
  }
  if (flags.loadModel.length > 0 && mode !== 'explicit') {
    throw new UsageError('--load-model only applies with --model-control-mode explicit', 'add --model-control-mode explicit, or drop --load-model to load every model');
  }
  const ports = { http: port(flags.httpPort, '--http-port'), grpc: port(flags.grpcPort, '--grpc-port'), metrics: port(flags.metricsPort, '--metrics-port') };
  const fixed = Object.entries(ports).filter(([, p]) => p !== 0);
  for (let i = 0; i < fixed.length; i++) {
    for (let j = i + 1; j < fixed.length; j++) {
      if (fixed[i]![1] === fixed[j]![1]) throw new UsageError(`--${fixed[i]![0]}-port and --${fixed[j]![0]}-port are both ${fixed[i]![1]}`, 'give each listener its own port');
    }
  }
  return {
    repository: path.resolve(cwd, flags.modelRepository ?? repoArg ?? 'model_repository'),
    host: flags.host,
    httpPort: ports.http,
    grpcPort: ports.grpc,
    metricsPort: ports.metrics,
    controlMode: mode,
    loadModels: flags.loadModel,
    pollSeconds: seconds(flags.repositoryPollSecs, '--repository-poll-secs', 0.1),
    exitOnError: flags.exitOnError,
    exitTimeoutSeconds: seconds(flags.exitTimeoutSecs, '--exit-timeout-secs', 0),
    logVerbose: flags.logVerbose,
    logFormat: flags.logFormat,
    maxBodyBytes: parseSize(flags.httpMaxBody, '--http-max-body'),
    maxInstancesPerModel: instanceLimit(flags.maxInstancesPerModel ?? String(DEFAULT_CONFIG_LIMITS.instancesPerModel)),
    httpFrontend,
  };
}
