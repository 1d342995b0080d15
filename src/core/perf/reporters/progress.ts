/**
 * Progress on stderr while a sweep runs. On a terminal (and not with --json): an ora spinner with
 * the current setting, window and infer/s. Otherwise (a log, CI, `2>file`): one plain line per
 * finished setting, so a long sweep shows it is alive and a killed one shows how far it got.
 */
import ora, { type Ora } from 'ora';
import type { IO } from '../../../io.js';
import type { LoadGenerator, SettingResult } from '../load-generator.js';
import { settingLabel } from '../report.js';

/** The line for one finished setting: its figures, or why it is unstable or failed. */
export function settingLine(r: SettingResult, index: number, total: number): string {
  const head = `[${index + 1}/${total}] ${settingLabel(r.setting)}`;
  if (!r.measurement) return `${head}: failed: ${r.note ?? 'no result'}`;
  const m = r.measurement;
  const figures = `${m.throughput.toFixed(1)} infer/s, avg ${(m.latency.avgUs / 1000).toFixed(2)} ms, p99 ${(m.latency.p99Us / 1000).toFixed(2)} ms`;
  const windows = `${r.windows.length} window${r.windows.length === 1 ? '' : 's'}`;
  return r.status === 'stable' ? `${head}: ${figures} (stable after ${windows})` : `${head}: ${figures} (unstable: ${r.note ?? windows})`;
}

export function attachProgress(generator: LoadGenerator, io: IO, spinnerAllowed: boolean): () => void {
  if (!io.stderrIsTTY) {
    let total = 0;
    let done = 0;
    generator.on('start', ({ settings }) => { total = settings.length; });
    generator.on('result', (r) => { io.stderr.write(`${settingLine(r, done++, total)}\n`); });
    return () => {};
  }
  if (!spinnerAllowed) return () => {};
  // The terminal decision is made here (io.stderrIsTTY), so ora is told, and never touches stdin.
  let spinner: Ora | undefined = ora({ stream: io.stderr as NodeJS.WritableStream, text: 'starting', isEnabled: true, discardStdin: false }).start();
  let current = '';
  let lastRate = '';
  generator.on('setting', ({ setting, index, total }) => {
    current = `[${index + 1}/${total}] ${settingLabel(setting)}`;
    lastRate = '';
    if (spinner) spinner.text = current;
  });
  generator.on('tick', ({ trial }) => {
    if (spinner) spinner.text = `${current} · window ${trial}${lastRate}`;
  });
  generator.on('window', ({ trial, measurement }) => {
    lastRate = ` · last ${measurement.throughput.toFixed(0)} infer/s`;
    if (spinner) spinner.text = `${current} · window ${trial}${lastRate}`;
  });
  const stop = () => { spinner?.stop(); spinner = undefined; };
  generator.on('done', stop);
  return stop;
}
