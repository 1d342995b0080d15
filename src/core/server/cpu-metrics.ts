/**
 * Triton's CPU metrics (`--allow-cpu-metrics`, on by default): the machine's CPU utilization over
 * the last `--metrics-interval-ms`, and its total and used memory, sampled on that interval as
 * Triton samples them (used is total less what the kernel counts available, as Triton reads
 * /proc/meminfo).
 */
import os from 'node:os';
import type { Registry } from 'prom-client';
import { serverGauge } from './metrics.js';

interface CpuTimes {
  busy: number;
  total: number;
}

function cpuTimes(): CpuTimes {
  let busy = 0;
  let total = 0;
  for (const { times } of os.cpus()) {
    const all = times.user + times.nice + times.sys + times.idle + times.irq;
    total += all;
    busy += all - times.idle;
  }
  return { busy, total };
}

/** Triton's default --metrics-interval-ms. */
export const DEFAULT_METRICS_INTERVAL_MS = 2000;

export class CpuMetrics {
  private timer: NodeJS.Timeout;
  private last = cpuTimes();
  private utilization = 0;
  private memoryUsed = 0;
  private readonly memoryTotal = os.totalmem();

  constructor(registry: Registry, intervalMs: number) {
    serverGauge(registry, 'nv_cpu_utilization', 'CPU utilization rate [0.0 - 1.0]', () => this.utilization);
    serverGauge(registry, 'nv_cpu_memory_total_bytes', 'CPU total memory (RAM), in bytes', () => this.memoryTotal);
    serverGauge(registry, 'nv_cpu_memory_used_bytes', 'CPU used memory (RAM), in bytes', () => this.memoryUsed);
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  private sample(): void {
    const now = cpuTimes();
    const total = now.total - this.last.total;
    if (total > 0) this.utilization = Math.min(1, Math.max(0, (now.busy - this.last.busy) / total));
    this.last = now;
    // os.freemem() is the kernel's MemAvailable on Linux.
    this.memoryUsed = this.memoryTotal - os.freemem();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
