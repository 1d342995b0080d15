/**
 * Runs ATC: the full console output goes to a log file next to the output, a spinner with the
 * elapsed time shows on a terminal (stderr), and the output is returned for the error-code scan.
 */
import fs from 'node:fs';
import { execa } from 'execa';
import ora, { type Ora } from 'ora';
import type { IO } from '../../io.js';

export interface AtcRunResult {
  exitCode: number;
  /** The signal that ended ATC, if any. */
  signal?: string;
  output: string;
  durationMs: number;
}

export interface AtcRunOptions {
  io: IO;
  logFile: string;
  /** What the spinner says is being compiled. */
  label: string;
  cwd: string;
}

export async function runAtc(atc: string, args: string[], opts: AtcRunOptions): Promise<AtcRunResult> {
  const log = fs.createWriteStream(opts.logFile);
  log.write(`$ ${atc} ${args.join(' ')}\n`);
  const started = Date.now();
  const spinner = startSpinner(opts, started);
  let output = '';
  let ok = false;
  try {
    const child = execa(atc, args, { cwd: opts.cwd, env: opts.io.env, extendEnv: false, all: true, reject: false, stdin: 'ignore' });
    child.all?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      log.write(chunk);
    });
    const result = await child;
    const durationMs = Date.now() - started;
    ok = result.exitCode === 0 && !result.failed;
    if (result.failed && output === '' && result.message) output = result.message;
    return { exitCode: result.exitCode ?? 1, signal: result.signal ?? undefined, output, durationMs };
  } finally {
    if (spinner) {
      clearInterval(spinner.tick);
      const elapsed = seconds(Date.now() - started);
      if (ok) spinner.ora.succeed(`atc finished: ${opts.label} (${elapsed})`);
      else spinner.ora.fail(`atc failed: ${opts.label} (${elapsed})`);
    }
    await new Promise<void>((resolve) => log.end(resolve));
  }
}

function startSpinner(opts: AtcRunOptions, started: number): { ora: Ora; tick: NodeJS.Timeout } | undefined {
  if (!opts.io.stderrIsTTY) return undefined;
  const text = () => `atc: compiling ${opts.label} (${seconds(Date.now() - started)})`;
  const spinner = ora({ text: text(), stream: opts.io.stderr as NodeJS.WritableStream, isEnabled: true }).start();
  // ora redraws the frame itself; the elapsed time in the text needs its own tick.
  const tick = setInterval(() => (spinner.text = text()), 1000);
  return { ora: spinner, tick };
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
