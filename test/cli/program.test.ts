import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { memoryIO } from '../../src/io.js';

describe('gebe program', () => {
  it('prints help listing every command and exits 0', async () => {
    const io = memoryIO();
    const code = await main(['node', 'gebe', '--help'], io);
    expect(code).toBe(0);
    for (const name of ['init', 'validate', 'convert', 'warmup', 'serve', 'perf', 'infer']) {
      expect(io.out()).toContain(name);
    }
  });

  it('maps an unknown command to exit 2 with a message on stderr', async () => {
    const io = memoryIO();
    const code = await main(['node', 'gebe', 'frobnicate'], io);
    expect(code).toBe(2);
    expect(io.err()).toContain("unknown command 'frobnicate'");
  });
});
