/** Runs the gebe program in process with captured streams, as a user would from `cwd`. */
import { main } from '../../src/cli.js';
import { memoryIO } from '../../src/io.js';

export async function runGebe(args: string[], io: Parameters<typeof memoryIO>[0] = {}) {
  const streams = memoryIO(io);
  const code = await main(['node', 'gebe', ...args], streams);
  return { code, out: streams.out(), err: streams.err() };
}
