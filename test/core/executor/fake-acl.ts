/**
 * Test helpers: builds the fake AscendCL (native/test/fake_acl) into a lib64/ folder once per
 * source change, and writes fake .om model files it understands.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** Builds the fake library and returns the folder to use as ASCEND_HOME_PATH. */
export function buildFakeAcl(): string {
  const source = path.join(repoRoot, 'native/test/fake_acl/fake_acl.cc');
  const header = path.join(repoRoot, 'native/src/ascend/acl_api.h');
  const hash = createHash('sha256').update(readFileSync(source)).update(readFileSync(header)).digest('hex').slice(0, 12);
  const home = path.join(repoRoot, 'build/native-tests/fake-acl', hash);
  const lib = path.join(home, 'lib64/libascendcl.so');
  if (!existsSync(lib)) {
    mkdirSync(path.dirname(lib), { recursive: true });
    const tmp = `${lib}.${process.pid}.tmp`;
    execFileSync('g++', ['-std=c++17', '-shared', '-fPIC', '-O1', '-I', path.join(repoRoot, 'native/src'), '-o', tmp, source]);
    renameSync(tmp, lib);  // atomic: test files building at once never see half a library
  }
  return home;
}

export interface FakeModel {
  input?: string;
  output?: string;
  rowDims?: number[];
  gears?: number[];
  staticBatch?: number;
  scale?: number;
}

/** Writes `<repo>/<name>/<version>/model.om` in the fake's text format; returns the model dir. */
export function writeFakeOm(repo: string, name: string, model: FakeModel, version = '1'): string {
  const dir = path.join(repo, name);
  mkdirSync(path.join(dir, version), { recursive: true });
  const lines = [
    'FAKEOM',
    `input ${model.input ?? 'x'} FP32 ${(model.rowDims ?? [4]).join(' ')}`,
    `output ${model.output ?? 'y'} FP32`,
    model.gears ? `gears ${model.gears.join(' ')}` : `static_batch ${model.staticBatch ?? 1}`,
    `scale ${model.scale ?? 2}`,
  ];
  writeFileSync(path.join(dir, version, 'model.om'), `${lines.join('\n')}\n`);
  return dir;
}

export function f32(values: number[]): Uint8Array {
  return new Uint8Array(new Float32Array(values).buffer);
}

export function floats(data: Uint8Array): number[] {
  return Array.from(new Float32Array(data.buffer, data.byteOffset, data.byteLength / 4));
}
