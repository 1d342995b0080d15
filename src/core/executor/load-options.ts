/**
 * Turns a ModelConfig into the options the native scheduler and engines take: instance count,
 * intra-op threads per instance, dynamic batching and queue policies, devices, gears and the
 * engine parameters. Values are assumed validated by `gebe validate`'s rules; the few that
 * would make the native side misbehave are checked here with a message naming the field.
 */
import os from 'node:os';
import { GebeError } from '../../errors.js';
import type { ModelConfig, ModelQueuePolicyConfig } from '../config/model-config.js';
import { batchLayoutOptions, type NativeBatchLayout } from './batch-layout-options.js';
import type { NativeSequenceOptions } from './sequence-options.js';
import { instanceRateLimits, type InstanceRateLimit, type RateLimiter } from './rate-limiter.js';

export interface NativeQueuePolicy {
  timeoutAction: 0 | 1;
  defaultTimeoutUs: number;
  allowTimeoutOverride: boolean;
  maxQueueSize: number;
}

/** With NativeBatchLayout: ragged inputs, batch inputs and batch outputs (batch-layout-options.ts). */
export interface NativeModelOptions extends NativeBatchLayout {
  modelName: string;
  instanceCount: number;
  intraOpThreads: number;
  deviceIds: number[];
  parameters: Record<string, string>;
  maxBatchSize: number;
  dynamicBatching: boolean;
  preferredBatchSizes: number[];
  maxQueueDelayUs: number;
  preserveOrdering: boolean;
  priorityLevels: number;
  defaultPriorityLevel: number;
  defaultQueuePolicy: NativeQueuePolicy;
  priorityQueuePolicy: Array<{ level: number; policy: NativeQueuePolicy }>;
  gears: number[];
  idleSpinUs: number;
  /** sequence_batching models: the sequence batcher's settings (sequence-options.ts). */
  sequence?: NativeSequenceOptions;
  /** The server's rate limiter and each instance's needs (--rate-limit execution_count). */
  rateLimiter?: RateLimiter;
  instanceRateLimits?: InstanceRateLimit[];
}

/**
 * How long an instance polls for its next batch before sleeping (µs). Polling yields the CPU
 * between checks and saves a thread wake-up when requests come back to back. Waking a sleeping
 * thread on another core is what costs: on the 2-core VMs gebe is built on, a condition-variable
 * ping-pong between two threads takes 66 µs per round trip across cores and 11 µs on one core,
 * and without the poll the executor added 102-130 µs per request over calling the engine
 * directly (bench:executor, concurrency 1); with a 50 µs poll it added 7-9 µs. An idle instance
 * spends at most this long per batch polling. `parameters { key: "gebe_idle_spin_us" value:
 * { string_value: "0" } }` turns it off.
 */
export const DEFAULT_IDLE_SPIN_US = 50;

/** Overrides a caller (perf, warmup, tests) may set on top of the config. */
export interface LoadOverrides {
  instanceCount?: number;
  intraOpThreads?: number;
  /** 0 disables the idle poll (default DEFAULT_IDLE_SPIN_US); config parameter `gebe_idle_spin_us` sets it per model. */
  idleSpinUs?: number;
  /** The server's rate limiter: the model's instances take their rate_limiter resources from it. */
  rateLimiter?: RateLimiter;
}

function queuePolicy(p: ModelQueuePolicyConfig | undefined): NativeQueuePolicy {
  return {
    timeoutAction: p?.timeout_action === 'DELAY' ? 1 : 0,
    defaultTimeoutUs: Number(p?.default_timeout_microseconds ?? 0),
    allowTimeoutOverride: p?.allow_timeout_override ?? false,
    maxQueueSize: Number(p?.max_queue_size ?? 0),
  };
}

/** `device_ids` "4,5" → [4, 5]. */
export function parseDeviceIds(value: string | undefined): number[] {
  if (value === undefined || value.trim() === '') return [];
  return value.split(',').map((part) => {
    const id = Number(part.trim());
    if (!Number.isInteger(id) || id < 0) {
      throw new GebeError(`parameters.device_ids "${value}" is not a comma-separated list of device numbers`, {
        hint: 'write it like "0" or "4,5" (the numbers `npu-smi info` shows)',
      });
    }
    return id;
  });
}

/**
 * Gears from `graph.ge.dynamicDims` ("1;2;4;8": one value per dynamic dim, gears separated by
 * ';'). Only single-value gears are batch sizes; other layouts are left to the engine.
 */
export function parseDynamicDimsGears(value: string | undefined): number[] {
  if (!value) return [];
  const gears = value.split(';').map((g) => g.trim()).filter((g) => g !== '');
  if (gears.some((g) => g.includes(','))) return [];
  const sizes = gears.map(Number);
  return sizes.every((n) => Number.isInteger(n) && n > 0) ? [...new Set(sizes)].sort((a, b) => a - b) : [];
}

function spinParameter(value: string | undefined): number {
  if (value === undefined) return DEFAULT_IDLE_SPIN_US;
  const us = Number(value);
  if (!Number.isInteger(us) || us < 0 || us > 10_000) {
    throw new GebeError(`parameters.gebe_idle_spin_us "${value}" is not a number of microseconds between 0 and 10000`, {
      hint: 'use "0" to let idle instances sleep at once, or e.g. "50"',
    });
  }
  return us;
}

export function instanceCountOf(config: ModelConfig): number {
  const groups = config.instance_group ?? [];
  if (groups.length === 0) return 1;
  return Math.max(1, groups.reduce((sum, g) => sum + Number(g.count ?? 1), 0));
}

export function nativeOptions(modelName: string, config: ModelConfig, overrides: LoadOverrides = {}): NativeModelOptions {
  const parameters: Record<string, string> = {};
  for (const [key, value] of Object.entries(config.parameters ?? {})) {
    if (typeof value?.string_value === 'string') parameters[key] = value.string_value;
  }
  const instanceCount = overrides.instanceCount ?? instanceCountOf(config);
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  const db = config.dynamic_batching;
  const maxBatchSize = Number(config.max_batch_size ?? 0);
  const priorityQueuePolicy = Object.entries(db?.priority_queue_policy ?? {}).map(([level, policy]) => ({
    level: Number(level),
    policy: queuePolicy(policy),
  }));
  return {
    modelName,
    instanceCount,
    intraOpThreads: overrides.intraOpThreads ?? Math.max(1, Math.floor(cores / instanceCount)),
    deviceIds: parseDeviceIds(parameters.device_ids),
    parameters,
    maxBatchSize,
    dynamicBatching: db !== undefined && maxBatchSize > 0,
    preferredBatchSizes: (db?.preferred_batch_size ?? []).map(Number).filter((n) => n > 0 && n <= maxBatchSize),
    maxQueueDelayUs: Number(db?.max_queue_delay_microseconds ?? 0),
    preserveOrdering: db?.preserve_ordering ?? false,
    priorityLevels: Number(db?.priority_levels ?? 0),
    defaultPriorityLevel: Number(db?.default_priority_level ?? 0),
    defaultQueuePolicy: queuePolicy(db?.default_queue_policy),
    priorityQueuePolicy,
    gears: maxBatchSize > 0 ? parseDynamicDimsGears(parameters['graph.ge.dynamicDims']) : [],
    idleSpinUs: overrides.idleSpinUs ?? spinParameter(parameters.gebe_idle_spin_us),
    ...batchLayoutOptions(config),
    ...(overrides.rateLimiter ? { rateLimiter: overrides.rateLimiter, instanceRateLimits: instanceRateLimits(config, instanceCount) } : {}),
  };
}
