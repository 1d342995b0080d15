/**
 * Benchmark: `gebe validate` on a generated repository of 1,000 GE-backend models, each with a
 * config.pbtxt, a version directory and an ONNX file (the bundled digits model, 31 KB).
 * Prints the in-process time and the CLI wall time (Node start-up included), median of 3 runs,
 * side by side with the 2 s target. Run: npm run bench:validate
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { toValidateOptions } from '../src/commands/validate/options.js';
import { runValidate } from '../src/commands/validate/run.js';
import { memoryIO } from '../src/io.js';

const MODELS = 1000;
const RUNS = 3;
const TARGET_MS = 2000;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const example = path.join(repoRoot, 'fixtures', 'model_repository', 'digits_linear');

export const MODEL_COUNT = MODELS;

export function generate(dir: string): void {
  const config = fs.readFileSync(path.join(example, 'config.pbtxt'), 'utf8');
  const onnx = fs.readFileSync(path.join(example, '1', 'model.onnx'));
  for (let i = 0; i < MODELS; i++) {
    const name = `model_${String(i).padStart(4, '0')}`;
    fs.mkdirSync(path.join(dir, name, '1'), { recursive: true });
    fs.writeFileSync(path.join(dir, name, 'config.pbtxt'), config.replace('name: "digits_linear"', `name: "${name}"`));
    fs.writeFileSync(path.join(dir, name, '1', 'model.onnx'), onnx);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-bench-validate-'));
  const repo = path.join(work, 'model_repository');
  try {
    generate(repo);
    const bytes = fs.readdirSync(repo).length;
    console.log(`generated ${bytes} models (config.pbtxt + 1/model.onnx each) in ${repo}`);

    const inProcess: number[] = [];
    const inProcessCpu: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const io = memoryIO({ cwd: work });
      const cpuStart = process.cpuUsage();
      const start = process.hrtime.bigint();
      const code = await runValidate(toValidateOptions(['model_repository'], { format: 'json' }), io);
      inProcess.push(Number(process.hrtime.bigint() - start) / 1e6);
      const cpu = process.cpuUsage(cpuStart);
      inProcessCpu.push((cpu.user + cpu.system) / 1000);
      const summary = (JSON.parse(io.out()) as { summary: { models: number; errors: number; warnings: number } }).summary;
      if (code !== 0 || summary.models !== MODELS) throw new Error(`unexpected result: exit ${code}, ${JSON.stringify(summary)}`);
    }

    const cli: number[] = [];
    const cliCpu: number[] = [];
    const bin = path.join(repoRoot, 'bin', 'gebe.js');
    const hasDist = fs.existsSync(path.join(repoRoot, 'dist', 'cli.js'));
    if (hasDist) {
      for (let i = 0; i < RUNS; i++) {
        const start = process.hrtime.bigint();
        // bash's `times` reports the CPU time of the child (user and system), a figure that other
        // load on a shared machine inflates far less than wall time.
        const script = `node ${JSON.stringify(bin)} validate model_repository --format json >/dev/null; code=$?; times; exit $code`;
        const r = await execa('bash', ['-c', script], { cwd: work, reject: false });
        cli.push(Number(process.hrtime.bigint() - start) / 1e6);
        if (r.exitCode !== 0) throw new Error(`gebe validate exited ${r.exitCode}: ${r.stderr}`);
        const children = r.stdout.trim().split('\n').pop()!.match(/(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/);
        if (children) cliCpu.push((Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4])) * 1000);
      }
    }

    const row = (label: string, ms: number, cpuMs: number | undefined) =>
      `${label.padEnd(38)} wall ${ms.toFixed(0).padStart(5)} ms  cpu ${cpuMs === undefined ? '    ?' : cpuMs.toFixed(0).padStart(5)} ms   target ${TARGET_MS} ms   wall/target ${(ms / TARGET_MS).toFixed(2)}x`;
    const load = os.loadavg()[0]!.toFixed(1);
    console.log(`\ngebe validate, ${MODELS} models, median of ${RUNS} runs on ${os.cpus().length} CPUs (load average ${load}):`);
    console.log(row('in-process (runValidate)', median(inProcess), median(inProcessCpu)));
    if (hasDist) console.log(row('CLI (node bin/gebe.js, with start-up)', median(cli), cliCpu.length ? median(cliCpu) : undefined));
    else console.log('CLI run skipped: dist/ is missing (npm run build)');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

// Run when executed, not when bench-validate-against.ts imports generate().
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
