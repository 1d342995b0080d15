/**
 * Live progress on stderr while a sweep runs: an ora spinner with the current setting, window and
 * infer/s. Only on a terminal (and never with --json); otherwise nothing is written.
 */
import ora, { type Ora } from 'ora';
import type { IO } from '../../../io.js';
import type { LoadGenerator } from '../load-generator.js';
import { settingLabel } from '../report.js';

export function attachProgress(generator: LoadGenerator, io: IO, enabled: boolean): () => void {
  if (!enabled || !io.stderrIsTTY) return () => {};
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
