/**
 * TfIdfVectorizer against ONNX Runtime at 1 and 2 threads, beyond ONNX's own node tests (which
 * conformance.test.ts runs: TF counts only): IDF and TFIDF weights, INT32 tokens, a 1-D row,
 * skips over several lengths, a pool with lengths outside [min, max], columns in another order
 * than the pool's (weights[i] weighs the pool's i-th n-gram, as the operator's text says and ONNX
 * Runtime does; ONNX's reference reads weights[c] for column c); and what it refuses.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, type AttributeValue } from '../../../helpers/onnx-builder.js';
import { ortAgreement } from '../../../helpers/ort-agreement.js';

const agree = ortAgreement('gebe-tfidf-');
const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-tfidf-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Unigrams 2, 3, 5, 4; bigrams (5, 6), (7, 8), (6, 7); trigram (5, 6, 7); their columns shuffled.
const pool: Record<string, AttributeValue> = {
  pool_int64s: [2, 3, 5, 4, 5, 6, 7, 8, 6, 7, 5, 6, 7],
  ngram_counts: [0, 4, 10],
  ngram_indexes: [7, 2, 5, 0, 1, 6, 3, 4],
};
const tokens = [[2, 3, 5, 6, 7, 5, 6, 7, 8, 4, 2, 6], [1, 5, 6, 6, 7, 7, 8, 5, 2, 5, 6, 7]];

function vectorizer(name: string, type: 'INT64' | 'INT32', dims: number[], attributes: Record<string, AttributeValue>): Uint8Array {
  return new OnnxGraphBuilder(name, 9).input('x', type, dims).node('TfIdfVectorizer', ['x'], ['y'], attributes).output('y', 'FLOAT').encode();
}

describe.each([1, 2])('TfIdfVectorizer vs ONNX Runtime (threads=%i)', (threads) => {
  it('TF, IDF and TFIDF with weights, over two rows, skips up to 2, lengths 1 to 3', async () => {
    const x: CpuTensor = { name: 'x', datatype: 'INT64', dims: [2, 12], data: BigInt64Array.from(tokens.flat(), BigInt) };
    const weights = { floats: [0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4] };
    for (const mode of ['TF', 'IDF', 'TFIDF']) {
      const model = vectorizer(`tfidf_${mode}`, 'INT64', [2, 12], { ...pool, mode, min_gram_length: 1, max_gram_length: 3, max_skip_count: 2, weights });
      await agree(model, [x], threads, 0);
    }
  });

  it('INT32 tokens in one row, only bigrams and trigrams (the unigrams take ids but are not counted), no weights', async () => {
    const x: CpuTensor = { name: 'x', datatype: 'INT32', dims: [12], data: Int32Array.from(tokens[1]) };
    for (const mode of ['TF', 'IDF', 'TFIDF']) {
      const model = vectorizer(`tfidf32_${mode}`, 'INT32', [12], { ...pool, mode, min_gram_length: 2, max_gram_length: 3, max_skip_count: 1 });
      await agree(model, [x], threads, 0);
    }
  });
});

describe('TfIdfVectorizer: what is refused, named', () => {
  const load = (model: Uint8Array) => {
    const file = path.join(dir, `m${Math.random().toString(36).slice(2)}.onnx`);
    writeFileSync(file, model);
    return CpuSession.load(file);
  };
  it('string pools, a bad mode, too long a gram and a pool longer than its columns at load', () => {
    const base = { mode: 'TF', min_gram_length: 1, max_gram_length: 1, ngram_counts: [0], ngram_indexes: [0] };
    expect(() => load(vectorizer('strings', 'INT64', [4], { ...base, pool_strings: ['a'] })))
      .toThrow(/pool_strings needs STRING tensors, which the cpu engine does not have \(pool_int64s works\)/);
    expect(() => load(vectorizer('mode', 'INT64', [4], { ...base, mode: 'BM25', pool_int64s: [1] }))).toThrow(/mode must be 'TF', 'IDF' or 'TFIDF' but is 'BM25'/);
    expect(() => load(vectorizer('long', 'INT64', [4], { ...base, max_gram_length: 100000, pool_int64s: [1] }))).toThrow(/max_gram_length 100000 is over the 256 the cpu engine takes/);
    expect(() => load(vectorizer('columns', 'INT64', [4], { ...base, pool_int64s: [1, 2] }))).toThrow(/ngram_indexes has 1 columns for a pool of more n-grams/);

  });

  it('a column index of 10^12 (4 TB of output) against the memory cap when run, allocating nothing at load', async () => {
    const session = load(vectorizer('wide', 'INT64', [4], { mode: 'TF', min_gram_length: 1, max_gram_length: 1, ngram_counts: [0], ngram_indexes: [1e12], pool_int64s: [1] }));
    try {
      await expect(session.run([{ name: 'x', datatype: 'INT64', dims: [4], data: BigInt64Array.from([1n, 2n, 1n, 3n]) }]))
        .rejects.toThrow(/output 'y' of shape \[1000000000001\] needs 4000000000004 bytes, above the memory cap/);
    } finally {
      session.close();
    }
  });
});
