/**
 * Benchmark: what `--against` adds to `gebe validate` on the 1,000-model bench repository. The
 * repository is committed to a fresh git repository, 10 models are changed (one breaking change
 * each), and the plain run and the `--against HEAD` run are timed side by side, in process,
 * median of 5 alternating runs. The budget is 2 s on top of the plain run.
 * Run: npm run bench:validate:against
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toValidateOptions } from '../src/commands/validate/options.js';
import { runValidate } from '../src/commands/validate/run.js';
import { memoryIO } from '../src/io.js';
import { generate, MODEL_COUNT } from './bench-validate.js';

const RUNS = 5;
const BUDGET_MS = 2000;
const CHANGED = 10;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(work: string, flags: { against?: string }): Promise<{ ms: number; breaking: number }> {
  const io = memoryIO({ cwd: work });
  const start = process.hrtime.bigint();
  await runValidate(toValidateOptions(['model_repository'], { format: 'json', ...flags }), io);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const diagnostics = (JSON.parse(io.out()) as { diagnostics: Array<{ ruleId: string }> }).diagnostics;
  return { ms, breaking: diagnostics.filter((d) => d.ruleId.startsWith('BREAKING_')).length };
}

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-bench-against-'));
  try {
    const repo = path.join(work, 'model_repository');
    generate(repo);
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@gebe.invalid', ...args], { cwd: work, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'baseline');
    for (let i = 0; i < CHANGED; i++) {
      const file = path.join(repo, `model_${String(i * 97).padStart(4, '0')}`, 'config.pbtxt');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"1;2;4;8"', '"1;2;8"'));
    }
    const plain: number[] = [];
    const against: number[] = [];
    let breaking = 0;
    await timed(work, {}); // warm-up: module loading and JIT
    for (let i = 0; i < RUNS; i++) {
      plain.push((await timed(work, {})).ms);
      const r = await timed(work, { against: 'HEAD' });
      against.push(r.ms);
      breaking = r.breaking;
    }
    if (breaking !== CHANGED) throw new Error(`expected ${CHANGED} breaking findings, got ${breaking}`);
    const p = median(plain);
    const a = median(against);
    console.log(`gebe validate, ${MODEL_COUNT} models (${CHANGED} with a removed gear), median of ${RUNS} runs on ${os.cpus().length} CPUs (load average ${os.loadavg()[0]!.toFixed(1)}):`);
    console.log(`plain                         ${p.toFixed(0).padStart(6)} ms`);
    console.log(`--against HEAD (git)          ${a.toFixed(0).padStart(6)} ms   ratio ${(a / p).toFixed(2)}x`);
    console.log(`added by --against            ${(a - p).toFixed(0).padStart(6)} ms   budget ${BUDGET_MS} ms   added/budget ${((a - p) / BUDGET_MS).toFixed(2)}x`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

await main();
