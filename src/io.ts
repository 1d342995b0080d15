/**
 * Terminal facts and output streams, injected into every command so tests can drive
 * commands with fake streams, with and without a terminal.
 */
import chalk, { Chalk, type ChalkInstance } from 'chalk';

export interface Writable {
  write(chunk: string): unknown;
}

export interface IO {
  stdout: Writable;
  stderr: Writable;
  /** stdout is a terminal: tables and colour are allowed. */
  stdoutIsTTY: boolean;
  /** stderr is a terminal: spinners and live progress are allowed. */
  stderrIsTTY: boolean;
  /** stdin is a terminal: prompting is allowed. */
  stdinIsTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

const guarded = new WeakSet<NodeJS.WriteStream>();

/**
 * A reader that went away (`gebe … | head -1`) ends the program quietly with exit 0, as `cat` and
 * `grep` do: node ignores SIGPIPE, so a write to a closed pipe surfaces as an EPIPE 'error' event
 * that, unhandled, crashes the process. On stderr the lost text is dropped and the exit code stays
 * the command's own. Other stream errors stay errors.
 */
export function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream, onClosed: () => void): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    onClosed();
  });
}

export function processIO(): IO {
  endQuietlyOnClosedPipe(process.stdout, () => process.exit(0));
  endQuietlyOnClosedPipe(process.stderr, () => {});
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdinIsTTY: Boolean(process.stdin.isTTY),
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Colour only on a terminal and never when NO_COLOR is set (https://no-color.org). */
export function colorEnabled(io: IO, stream: 'stdout' | 'stderr' = 'stdout'): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true;
  return stream === 'stdout' ? io.stdoutIsTTY : io.stderrIsTTY;
}

/** A chalk instance that prints plain text when colour is off. */
export function colors(io: IO, stream: 'stdout' | 'stderr' = 'stdout'): ChalkInstance {
  return colorEnabled(io, stream) ? new Chalk({ level: Math.max(chalk.level, 1) as 1 | 2 | 3 }) : new Chalk({ level: 0 });
}

/** A test IO that collects output into strings. */
export function memoryIO(overrides: Partial<IO> = {}): IO & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (c: string) => (out += c) },
    stderr: { write: (c: string) => (err += c) },
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    env: {},
    cwd: process.cwd(),
    ...overrides,
    out: () => out,
    err: () => err,
  };
}
