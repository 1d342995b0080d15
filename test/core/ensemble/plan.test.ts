/** The pure parts of the ensemble scheduler: the step graph, output pruning, batch reshaping, dependency walk. */
import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../../src/core/config/model-config.js';
import { reshapeForReader } from '../../../src/core/ensemble/batch-shape.js';
import { ensembleDependencies } from '../../../src/core/ensemble/dependencies.js';
import { ensemblePlan, neededSteps } from '../../../src/core/ensemble/plan.js';

const step = (model_name: string, inputs: Record<string, string>, outputs: Record<string, string>, model_version = -1) =>
  ({ model_name, model_version, input_map: inputs, output_map: outputs });
const ensemble = (name: string, steps: unknown[]): ModelConfig => ({ name, platform: 'ensemble', ensemble_scheduling: { step: steps } });

describe('ensemblePlan / neededSteps', () => {
  // a → (pre) → img → (cls) → logits → (post) → label ; img → (thumb) → small
  const plan = ensemblePlan(ensemble('e', [
    step('pre', { IN: 'a' }, { OUT: 'img' }),
    step('cls', { IN: 'img' }, { OUT: 'logits' }, 2),
    step('post', { IN: 'logits' }, { OUT: 'label' }),
    step('thumb', { IN: 'img' }, { OUT: 'small' }),
  ]));

  it('reads the steps, their versions (-1 = latest) and who writes and reads each tensor', () => {
    expect(plan.steps.map((s) => [s.modelName, s.modelVersion])).toEqual([['pre', undefined], ['cls', '2'], ['post', undefined], ['thumb', undefined]]);
    expect(plan.readers.get('img')).toEqual([1, 3]);
    expect(plan.writer.get('label')).toBe(2);
  });

  it('runs only the steps a request needs for the outputs it asks for', () => {
    expect([...neededSteps(plan, ['label', 'small'])].sort()).toEqual([0, 1, 2, 3]);
    expect([...neededSteps(plan, ['small'])].sort()).toEqual([0, 3]);
    expect([...neededSteps(plan, ['logits'])].sort()).toEqual([0, 1]);
  });
});

describe('reshapeForReader (Triton ReshapeTensorDims)', () => {
  it('passes shapes through when producer and reader agree on batching', () => {
    expect(reshapeForReader([2], true, 3, [3, 2])).toEqual([3, 2]);
    expect(reshapeForReader([1, 2], false, 0, [1, 2])).toEqual([1, 2]);
  });
  it('adds a batch of 1 for a batching reader of a non-batched tensor shaped like its dims', () => {
    expect(reshapeForReader([2], true, 0, [2])).toEqual([1, 2]);
    expect(reshapeForReader([2], true, 0, [5, 2])).toEqual([5, 2]);
  });
  it('drops a batch of 1 for a non-batching reader whose dims leave it out', () => {
    expect(reshapeForReader([2], false, 1, [1, 2])).toEqual([2]);
    expect(reshapeForReader([1, 2], false, 1, [1, 2])).toEqual([1, 2]);
    expect(reshapeForReader([2], false, 3, [3, 2])).toEqual([3, 2]);
  });
});

describe('ensembleDependencies', () => {
  const repo = new Map<string, ModelConfig>([
    ['outer', ensemble('outer', [step('inner', {}, {}), step('c', {}, {})])],
    ['inner', ensemble('inner', [step('a', {}, {}), step('b', {}, {})])],
    ['a', { name: 'a' }], ['b', { name: 'b' }], ['c', { name: 'c' }],
    ['self', ensemble('self', [step('self', {}, {})])],
    ['x', ensemble('x', [step('y', {}, {})])],
    ['y', ensemble('y', [step('z', {}, {})])],
    ['z', ensemble('z', [step('x', {}, {})])],
    ['gap', ensemble('gap', [step('a', {}, {}), step('nope', {}, {}), step('nada', {}, {})])],
  ]);
  const read = async (n: string) => repo.get(n);
  it('lists nested composing models, dependencies first', async () => {
    expect(await ensembleDependencies('outer', repo.get('outer')!, read)).toEqual(['a', 'b', 'inner', 'c']);
  });
  it('refuses cycles and missing models in Triton words', async () => {
    await expect(ensembleDependencies('self', repo.get('self')!, read)).rejects.toThrow('circular dependency between ensembles: self -> ... -> self -> self');
    await expect(ensembleDependencies('x', repo.get('x')!, read)).rejects.toThrow('circular dependency between ensembles: x -> ... -> z -> x');
    await expect(ensembleDependencies('gap', repo.get('gap')!, read)).rejects.toThrow('ensemble gap contains models that are not available or ambiguous: nope, nada');
  });
});
