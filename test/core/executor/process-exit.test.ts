/**
 * A loaded model must never keep Node alive on its own nor crash it on the way out: once no
 * request is outstanding the process ends by itself (models not unloaded), and process.exit()
 * with requests still queued or running tears the scheduler down cleanly.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './fake-acl.js';

let work: string;

beforeAll(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'gebe-exit-'));
  mkdirSync(path.join(work, 'mnist/1'), { recursive: true });
  copyFileSync(path.join(repoRoot, 'templates/mnist/1/model.onnx'), path.join(work, 'mnist/1/model.onnx'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(body: string): string {
  const script = path.join(work, `script-${Math.random().toString(36).slice(2)}.mts`);
  writeFileSync(
    script,
    `import { loadModel } from ${JSON.stringify(path.join(repoRoot, 'src/core/executor/index.ts'))};
const config = { name: 'mnist', max_batch_size: 16, input: [{ name: 'image', data_type: 'TYPE_FP32' as const, dims: [1, 28, 28] }],
  output: [{ name: 'logits', data_type: 'TYPE_FP32' as const, dims: [10] }], instance_group: [{ count: 2 }],
  dynamic_batching: { preferred_batch_size: [4, 8], max_queue_delay_microseconds: 1000000 } };
const model = await loadModel(${JSON.stringify(path.join(work, 'mnist'))}, '1', config);
const request = () => model.infer({ inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], data: new Uint8Array(3136) }] });
${body}
`,
  );
  return execFileSync(process.execPath, ['--import', 'tsx', script], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
}

describe('process lifetime with loaded models', () => {
  it('ends by itself when no request is outstanding, without unload', () => {
    const out = run(`const r = await Promise.all(Array.from({ length: 8 }, request));
console.log('answered', r.length);`);
    expect(out.trim()).toBe('answered 8');
  });

  it('keeps the process alive while a request waits in the queue', () => {
    // One request below the preferred sizes waits the whole 1 s delay: Node must not exit first.
    const out = run(`const r = await request();
console.log('answered', r.outputs[0].shape.join('x'));`);
    expect(out.trim()).toBe('answered 1x10');
  });

  it('exits cleanly with requests queued and running', () => {
    const out = run(`for (let i = 0; i < 50; i += 1) request().catch(() => {});
setTimeout(() => { console.log('exiting', model.pendingCount() > 0); process.exit(0); }, 20);`);
    expect(out.trim()).toBe('exiting true');
  });
});
