/** `gebe serve` through the CLI program: real executor, real repository, ports 0, SIGTERM. */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli.js';
import { memoryIO } from '../../../src/io.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

describe('gebe serve (CLI)', () => {
  it('serves the MNIST template, prints the table and endpoints, and exits 0 on SIGTERM', async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-cli-serve-'));
    cpSync(path.join(repoRoot, 'templates/mnist'), path.join(repo, 'mnist'), { recursive: true });
    const io = memoryIO({ cwd: repo });
    const exit = main(['node', 'gebe', 'serve', '--model-repository', repo, '--http-port', '0', '--grpc-port', '0', '--metrics-port', '0', '--exit-timeout-secs', '5'], io);
    let port: number | undefined;
    while (!port) {
      const m = /HTTP\s+http:\/\/127\.0\.0\.1:(\d+)\/v2/.exec(io.out());
      if (m) port = Number(m[1]);
      else await new Promise((r) => setTimeout(r, 20));
    }
    expect(io.out()).toMatch(/^mnist\s+1\s+READY\s+cpu\s+2\b/m);
    expect(io.out()).toMatch(/^gRPC\s+127\.0\.0\.1:\d+$/m);
    expect((await fetch(`http://127.0.0.1:${port}/v2/health/ready`)).status).toBe(200);
    process.emit('SIGTERM', 'SIGTERM');
    expect(await exit).toBe(0);
    expect(io.err()).toMatch(/server stopped/);
    rmSync(repo, { recursive: true, force: true });
  });

  it.each(['0', '65', 'x'])('exits 2 naming --http-thread-count and its range for %s', async (value) => {
    const io = memoryIO();
    expect(await main(['node', 'gebe', 'serve', '/nonexistent/repo', '--http-port', '0', '--http-thread-count', value], io)).toBe(2);
    expect(io.err()).toContain(`--http-thread-count must be a whole number from 1 to 64, got '${value}'`);
  });

  it('exits 2 with a hint when the repository is missing', async () => {
    const io = memoryIO();
    expect(await main(['node', 'gebe', 'serve', '/nonexistent/repo', '--http-port', '0'], io)).toBe(2);
    expect(io.err()).toMatch(/model repository '\/nonexistent\/repo' does not exist/);
    expect(io.err()).toMatch(/hint: .*gebe init/);
  });
});
