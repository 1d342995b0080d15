/**
 * Reads Triton's L0_model_config QA cases (../shared/corpus/triton-l0-model-config) and prepares
 * them the way Triton's test.sh does, for the validate tests.
 */
import fs from 'node:fs';
import path from 'node:path';

export const corpusDir = path.resolve(import.meta.dirname, '..', '..', '..', '..', 'shared', 'corpus', 'triton-l0-model-config');

export interface QaCase {
  id: string;
  /** e.g. qa/L0_model_config/noautofill_platform/reshape_variable0 */
  source: string;
  /** The model name: the last path segment. */
  model: string;
  dir: string;
}

export function qaCases(group: 'noautofill_platform' | 'autofill_noplatform_success' | 'model_metrics'): QaCase[] {
  const manifest = fs.readFileSync(path.join(corpusDir, 'manifest.tsv'), 'utf8');
  return manifest.split('\n').filter(Boolean).map((line) => {
    const [id, source] = line.split('\t') as [string, string];
    return { id, source, model: path.basename(source), dir: path.join(corpusDir, 'cases', id) };
  }).filter((c) => c.source.includes(`/${group}/`));
}

/** test.sh: drop every line containing `platform:`, then append the platform under test. */
export function withPlatform(config: string, platform: string): string {
  const kept = config.split('\n').filter((line) => !line.includes('platform:'));
  return `${kept.join('\n')}\nplatform: "${platform}"\n`;
}

/** An error fragment is a grep basic regex: turn it into a JS RegExp ('.' and '*' keep their meaning). */
export function fragmentRegExp(fragment: string): RegExp {
  let out = '';
  for (let i = 0; i < fragment.length; i++) {
    const ch = fragment[i]!;
    if (ch === '\\' && i + 1 < fragment.length) {
      out += fragment[++i]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    } else if (ch === '.' || ch === '*') out += ch;
    else out += ch.replace(/[+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(out);
}

/**
 * The fragment without Triton's trailing " for <model>" (gebe names the file instead), as a RegExp.
 */
export function expectedMessage(fragment: string, model: string): RegExp {
  const trimmed = fragment.trim();
  const suffix = ` for ${model}`;
  return fragmentRegExp(trimmed.endsWith(suffix) ? trimmed.slice(0, -suffix.length) : trimmed);
}

export function expectedFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name.startsWith('expected')) out.push(path.join(d, e.name));
    }
  };
  walk(dir);
  return out.sort();
}
