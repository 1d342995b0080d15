/** The tune report on the terminal: the Pareto front, the winner (or the closest trial) and the baseline. */
import type { ChalkInstance } from 'chalk';
import { describeCandidate } from './candidate.js';
import { describeConstraints, describeObjective, type TuneReport } from './report.js';
import type { Trial } from './trial.js';

const ms = (us: number) => (us / 1000).toFixed(2);

function row(t: Trial): string[] {
  const c = t.candidate;
  const b = c.batching;
  return [String(c.instanceCount), b ? `[${b.preferredBatchSizes.join(',')}]` : 'off', b ? String(b.maxQueueDelayUs) : '–', String(c.concurrency),
    t.error ? 'failed' : t.throughput.toFixed(1), t.error ? '–' : ms(t.latencyUs.p50), t.error ? '–' : ms(t.latencyUs.p99)];
}

const HEAD = ['instances', 'preferred', 'delay µs', 'concurrency', 'infer/s', 'p50 ms', 'p99 ms'];

function table(trials: Trial[]): string {
  const rows = trials.map(row);
  const widths = HEAD.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((s, i) => s.padStart(widths[i]!)).join('  ');
  return [line(HEAD), ...rows.map(line)].map((l) => `  ${l}\n`).join('');
}

export function formatTuneTable(report: TuneReport, c: ChalkInstance): string {
  const measured = report.trials.filter((t) => !t.error).length;
  let out = `${c.bold(report.model.name)} v${report.model.version}: ${report.search} search, ${report.target}\n`;
  out += `  ${report.trials.length} trials (${measured} measured${report.resumed ? `, ${report.resumed} resumed from the checkpoint` : ''}); constraints: ${describeConstraints(report.constraints)}; objective: ${describeObjective(report.objective)}\n\n`;
  out += `Pareto front (throughput vs p99):\n${table(report.trials.filter((t) => report.pareto.includes(t.key)))}\n`;
  out += `Baseline (config.pbtxt as written):\n${table(report.baseline)}\n`;
  const failed = report.trials.filter((t) => t.error);
  for (const t of failed) out += c.dim(`trial ${describeCandidate(t.candidate)} failed: ${t.error}\n`);
  if (report.winner) {
    const w = report.winner;
    out += `${c.green('winner')}: ${describeCandidate(w.candidate)}: ${w.throughput.toFixed(1)} infer/s, p99 ${ms(w.latencyUs.p99)} ms`;
    out += report.speedup !== undefined ? ` (${report.speedup.toFixed(2)}× the baseline's throughput at concurrency ${w.candidate.concurrency})\n` : '\n';
    if (report.written) out += `wrote the winner's settings to ${report.written}\n`;
  } else {
    out += `${c.red('no trial meets the constraints')} (${describeConstraints(report.constraints)})`;
    if (report.closest) {
      const t = report.closest;
      out += `; closest: ${describeCandidate(t.candidate)}: ${t.throughput.toFixed(1)} infer/s, p50 ${ms(t.latencyUs.p50)} ms, p99 ${ms(t.latencyUs.p99)} ms`;
    }
    out += '\n';
  }
  return out;
}
