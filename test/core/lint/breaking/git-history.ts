/**
 * Real git history for the --against tests: a repository with a model repository committed as the
 * baseline (a GE classifier with labels and gears, a sequence model, an ensemble over the
 * classifier), which each test changes and commits again.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const fixture = path.resolve(import.meta.dirname, '..', '..', '..', '..', 'fixtures', 'model_repository', 'digits_linear');

export interface History {
  /** The git work tree. */
  dir: string;
  /** mr/<rel> in the work tree. */
  file(rel: string): string;
  read(rel: string): string;
  write(rel: string, text: string): void;
  /** Replaces text in a file; throws when the text is not there (a test that changes nothing cannot fail). */
  edit(rel: string, from: string | RegExp, to: string): void;
  remove(rel: string): void;
  commit(message: string): void;
  git(...args: string[]): string;
}

const SEQUENCE = `name: "seq"
backend: "ge"
max_batch_size: 8
input [
  {
    name: "image"
    data_type: TYPE_FP32
    dims: [ 1, 28, 28 ]
  }
]
output [
  {
    name: "probabilities"
    data_type: TYPE_FP32
    dims: [ 10 ]
  }
]
sequence_batching {
  max_sequence_idle_microseconds: 5000000
  control_input [
    {
      name: "START"
      control [
        {
          kind: CONTROL_SEQUENCE_START
          fp32_false_true: [ 0, 1 ]
        }
      ]
    }
  ]
}
`;

const ENSEMBLE = `name: "pipeline"
platform: "ensemble"
max_batch_size: 8
input [
  {
    name: "pixels"
    data_type: TYPE_FP32
    dims: [ 1, 28, 28 ]
  }
]
output [
  {
    name: "scores"
    data_type: TYPE_FP32
    dims: [ 10 ]
  }
]
ensemble_scheduling {
  step [
    {
      model_name: "digits"
      model_version: -1
      input_map { key: "image" value: "pixels" }
      output_map { key: "probabilities" value: "scores" }
    }
  ]
}
`;

export function makeHistory(): History {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-against-'));
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=gebe test', '-c', 'user.email=test@gebe.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] }).toString('utf8');
  const file = (rel: string) => path.join(dir, 'mr', rel);
  const h: History = {
    dir,
    file,
    read: (rel) => fs.readFileSync(file(rel), 'utf8'),
    write(rel, text) {
      fs.mkdirSync(path.dirname(file(rel)), { recursive: true });
      fs.writeFileSync(file(rel), text);
    },
    edit(rel, from, to) {
      const before = h.read(rel);
      const after = before.replace(from, to);
      if (after === before) throw new Error(`${rel}: ${String(from)} not found`);
      h.write(rel, after);
    },
    remove: (rel) => fs.rmSync(file(rel), { recursive: true, force: true }),
    commit(message) {
      git('add', '-A');
      git('commit', '-q', '--allow-empty', '-m', message);
    },
    git,
  };
  git('init', '-q', '-b', 'main');
  const onnx = fs.readFileSync(path.join(fixture, '1', 'model.onnx'));
  const digits = fs.readFileSync(path.join(fixture, 'config.pbtxt'), 'utf8')
    .replace('name: "digits_linear"', 'name: "digits"')
    .replace('    dims: [ 10 ]\n', '    dims: [ 10 ]\n    label_filename: "labels.txt"\n');
  h.write('digits/config.pbtxt', digits);
  h.write('digits/labels.txt', Array.from({ length: 10 }, (_, i) => `digit_${i}`).join('\n') + '\n');
  fs.mkdirSync(file('digits/1'), { recursive: true });
  fs.writeFileSync(file('digits/1/model.onnx'), onnx);
  h.write('seq/config.pbtxt', SEQUENCE);
  fs.mkdirSync(file('seq/1'), { recursive: true });
  fs.writeFileSync(file('seq/1/model.onnx'), onnx);
  h.write('pipeline/config.pbtxt', ENSEMBLE);
  h.write('pipeline/1/.gitkeep', ''); // git keeps no empty directories; Triton needs the version directory
  h.commit('baseline');
  return h;
}
