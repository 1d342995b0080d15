/**
 * GEBE_CPU_PROFILE=1 makes a cpu session print, when it closes, where its run time went: one line
 * per step with its mean time and share, named after the ONNX node, over every run but the first.
 * Read once per session, at load.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../fake-acl.js';

let work: string;
let script: string;

beforeAll(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'gebe-profile-'));
  copyFileSync(path.join(repoRoot, 'templates/mnist/1/model.onnx'), path.join(work, 'model.onnx'));
  script = path.join(work, 'run.mts');
  writeFileSync(
    script,
    `import { CpuSession } from ${JSON.stringify(path.join(repoRoot, 'test/helpers/cpu-session.ts'))};
const session = CpuSession.load(${JSON.stringify(path.join(work, 'model.onnx'))}, { intraOpThreads: 1 });
const image = { name: session.info().inputs[0].name, datatype: 'FP32' as const, dims: [2, 1, 28, 28], data: new Float32Array(2 * 784).fill(0.5) };
for (let i = 0; i < 3; i += 1) session.runSync([image]);
session.close();
console.log('done');
`,
  );
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(env: Record<string, string>) {
  return spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
}

describe('GEBE_CPU_PROFILE', () => {
  it('prints the time per step, by node name, when the session closes', () => {
    const { stdout, stderr, status } = run({ GEBE_CPU_PROFILE: '1' });
    expect(status).toBe(0);
    expect(stdout.trim()).toBe('done');
    // The first run (weights packed, plan built) is left out.
    expect(stderr).toMatch(/gebe cpu profile: 2 runs after the first, 1 threads, [0-9.]+ us per run/);
    const steps = stderr.split('\n').filter((l) => / us +[0-9.]+%  node '/.test(l));
    expect(steps.length).toBeGreaterThanOrEqual(3);
    expect(stderr).toMatch(/\(Conv\)/);
    const shares = steps.map((l) => Number(/([0-9.]+)%/.exec(l)![1]));
    expect(shares.reduce((a, b) => a + b, 0)).toBeGreaterThan(99);
    expect(shares.reduce((a, b) => a + b, 0)).toBeLessThan(101);
  });

  it('prints nothing when unset or 0', () => {
    for (const value of ['0', '']) {
      const { stderr, status } = run({ GEBE_CPU_PROFILE: value });
      expect(status).toBe(0);
      expect(stderr).not.toMatch(/gebe cpu profile/);
    }
  });
});
