/**
 * Triton's rate limiter (`--rate-limit execution_count`) for the models the native executor runs:
 * one limiter per server (native/src/scheduler/rate_limiter.h), handed to every model it loads,
 * and each instance's needs read from its instance group's `rate_limiter`.
 */
import type { ModelConfig } from '../config/model-config.js';
import { loadNativeAddon } from './native.js';

/** `--rate-limit-resource name:count[:device]`; device -1: every device (and a global resource). */
export interface RateLimitResource {
  name: string;
  count: number;
  device: number;
}

/**
 * The server's limiter, as loadModel takes it (LoadOverrides.rateLimiter); the executor's
 * instances use it natively, the instances JS runs (a Python model's processes) through
 * register / acquire / release.
 */
export interface RateLimiter {
  /** Copies of each resource the server has now: "name" (global) or "name@device". */
  capacities(): Array<[string, number]>;
  /** Registers one instance; throws (Error) when the server has fewer copies of a resource than it needs. */
  register(limit: InstanceRateLimit & { device: number }): number;
  unregister(id: number): void;
  /** Settles once the instance holds its resources. */
  acquire(id: number): Promise<void>;
  release(id: number): void;
}

/** One instance's rate_limiter, as the native loader reads it. */
export interface InstanceRateLimit {
  resources: Array<{ name: string; global: boolean; count: number }>;
  priority: number;
}

type RateLimiterClass = new (resources: RateLimitResource[]) => RateLimiter;

export function createRateLimiter(resources: RateLimitResource[]): RateLimiter {
  const NativeRateLimiter = loadNativeAddon().RateLimiter as RateLimiterClass;
  return new NativeRateLimiter(resources);
}

interface RateLimiterConfig {
  resources?: Array<{ name?: string; global?: boolean; count?: number | string }>;
  priority?: number | string;
}

/** Each instance's needs, in instance order (groups in order, `count` instances each). */
export function instanceRateLimits(config: ModelConfig, instanceCount: number): InstanceRateLimit[] {
  const out: InstanceRateLimit[] = [];
  for (const group of config.instance_group ?? []) {
    const limiter = (group as { rate_limiter?: RateLimiterConfig }).rate_limiter;
    const limit: InstanceRateLimit = {
      resources: (limiter?.resources ?? []).map((r) => ({ name: String(r.name ?? ''), global: r.global === true, count: Number(r.count ?? 0) })),
      priority: Number(limiter?.priority ?? 0),
    };
    for (let i = 0; i < Number(group.count ?? 1); i++) out.push(limit);
  }
  return out.slice(0, instanceCount);
}
