/**
 * Runs one warmup step and measures what a cold start costs: plan compilation for the batch's
 * shapes (in process), the first execution, and the steady-state median after it.
 */
import type { CompileReport, InferTensor } from '../../core/executor/types.js';
import type { WarmupStep } from '../../core/warmup/plan.js';

export interface WarmupRunner {
  /** Pre-compiles the shapes (in process only; a server compiles on its own). */
  compile?(shapes: Record<string, number[]>): Promise<CompileReport>;
  infer(inputs: InferTensor[]): Promise<unknown>;
}

export interface WarmupRow {
  name: string;
  batchSize: number;
  compileMs?: number;
  /** The plan was already compiled (an earlier step with the same shapes). */
  cached?: boolean;
  firstRunMs: number;
  steadyP50Ms: number;
  /** Executions: the warmup's own count, then the steady-state runs. */
  warmupRuns: number;
  steadyRuns: number;
}

export async function runWarmupStep(step: WarmupStep, runner: WarmupRunner, steadyRuns: number, now: () => number = () => performance.now()): Promise<WarmupRow> {
  let compileMs: number | undefined;
  let cached: boolean | undefined;
  if (runner.compile) {
    const report = await runner.compile(Object.fromEntries(step.inputs.map((t) => [t.name, t.shape])));
    compileMs = report.compileMs;
    cached = report.cached;
  }
  let t = now();
  await runner.infer(step.inputs);
  const firstRunMs = now() - t;
  for (let i = 1; i < step.count; i++) await runner.infer(step.inputs);
  const times: number[] = [];
  for (let i = 0; i < steadyRuns; i++) {
    t = now();
    await runner.infer(step.inputs);
    times.push(now() - t);
  }
  return { name: step.name, batchSize: step.batchSize, compileMs, cached, firstRunMs, steadyP50Ms: median(times), warmupRuns: step.count, steadyRuns };
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function formatRows(rows: WarmupRow[]): string {
  const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '-' : v < 10 ? `${v.toFixed(2)} ms` : `${v.toFixed(1)} ms`);
  const table = [['warmup', 'batch', 'compile', 'first run', 'steady p50', 'runs']];
  for (const r of rows) {
    table.push([r.name, String(r.batchSize), r.compileMs === undefined ? '-' : `${ms(r.compileMs)}${r.cached ? ' (cached)' : ''}`, ms(r.firstRunMs), ms(r.steadyP50Ms), `${r.warmupRuns}+${r.steadyRuns}`]);
  }
  const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
  return table.map((row) => `  ${row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')}\n`).join('');
}
