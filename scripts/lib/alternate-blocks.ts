/**
 * Timing two or more runners (gebe and ONNX Runtime) side by side: alternating blocks of calls, so
 * machine noise hits all alike. Shared by `npm run bench:engine` and `npm run bench:zoo`.
 */
function percentile50(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * p50 latency (ms) of each runner, timed in alternating blocks of calls so that machine noise hits
 * all alike: at least `minIters` calls each, and more until `budgetMs` has passed (small models
 * get hundreds of samples instead of 20, which on a shared machine is the difference between a
 * median and a guess).
 *
 * Each block measures one engine alone. ONNX Runtime's intra-op workers keep spinning for about
 * 30 ms after a run (measured here: 3 scheduler ticks of a worker while the JS thread was busy
 * for 500 ms after the last run), and with blocks switching every few ms they never stop: gebe's
 * second thread then shares its core with that spinner, and gebe's 2-thread MNIST time doubled
 * (with ORT's spinning turned off, gebe's time fell back while ORT's rose). So before each block
 * the JS thread idles SETTLE_MS (every engine's workers go quiet), then the engine runs untimed for
 * WARM_MS (its own workers spinning again, its data in cache, the core's clock back up), then the
 * block is timed. Only multi-threaded rows need this: at one thread neither engine has workers,
 * and there the pause only added cold-start noise (1-thread rows came out 10-20% slower, gebe's
 * more than ORT's), so they keep one untimed call per block.
 */
const SETTLE_MS = Number(process.env.GEBE_BENCH_SETTLE_MS ?? 50);
const WARM_MS = Number(process.env.GEBE_BENCH_WARM_MS ?? 60);

export async function timeBlocks(runs: Array<() => unknown>, minIters: number, budgetMs: number, settle: boolean): Promise<number[]> {
  const BLOCK = 8;
  const samples = runs.map(() => [] as number[]);
  for (let i = 0; i < 3; i++) for (const run of runs) await run();
  const end = performance.now() + budgetMs;
  while (samples[0].length < 5000 && (samples[0].length < minIters || performance.now() < end)) {
    for (const [r, run] of runs.entries()) {
      if (settle && SETTLE_MS > 0) await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const warmEnd = performance.now() + (settle ? WARM_MS : 0);
      do await run(); while (performance.now() < warmEnd);
      for (let i = 0; i < BLOCK; i++) {
        const t0 = process.hrtime.bigint();
        await run();
        samples[r].push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }
  }
  return samples.map(percentile50);
}

