/**
 * `validate --fix` and `--fix-dry-run` without touching the disk: applies every safe fix to the
 * configs' text in memory, re-linting between passes (one fix can uncover another, e.g. a renamed
 * field that now gets checked), and returns each changed file's text before and after. Writing the
 * files (write-fixed.ts) or printing the diff (fix-diff.ts) is the caller's choice.
 */
import { applyFixes } from '../config/edits.js';
import type { ConfigSource, ScanTarget } from '../repository/types.js';
import type { LintResult } from './runner.js';

export interface FixedFile {
  /** The config's path on disk and as shown. */
  path: string;
  display: string;
  before: string;
  after: string;
  /** Fixes applied over all passes. */
  applied: number;
}

export interface FixOutcome {
  /** The lint result of the fixed texts. */
  result: LintResult;
  files: FixedFile[];
}

const MAX_FIX_PASSES = 5;

/** Every config source a scan found, once. */
function configSources(targets: ScanTarget[]): ConfigSource[] {
  const out: ConfigSource[] = [];
  for (const t of targets) {
    if (t.config) out.push(t.config);
    for (const m of t.models) if (m.config) out.push(m.config);
  }
  return out;
}

/**
 * Applies safe fixes to the scanned texts (replacing `text` in the targets' config sources, so
 * the caller must not reuse the targets as a picture of the disk) until none apply.
 */
export function applySafeFixesInMemory(targets: ScanTarget[], lint: (targets: ScanTarget[]) => LintResult): FixOutcome {
  const files = new Map<ConfigSource, FixedFile>();
  let result = lint(targets);
  for (let pass = 0; pass < MAX_FIX_PASSES; pass++) {
    let appliedThisPass = 0;
    for (const source of configSources(targets)) {
      // A file with invalid UTF-8 was decoded lossily: writing it back would destroy bytes.
      if (source.text === undefined || source.invalidUtf8) continue;
      const fixes = result.diagnostics.flatMap((d) => (d.file === source.display && d.fix?.safe && d.fix.edits.length > 0 ? [d.fix] : []));
      if (fixes.length === 0) continue;
      const { text, applied } = applyFixes(source.text, fixes);
      if (applied.length === 0 || text === source.text) continue;
      const file = files.get(source) ?? { path: source.path, display: source.display, before: source.text, after: text, applied: 0 };
      file.after = text;
      file.applied += applied.length;
      files.set(source, file);
      source.text = text;
      appliedThisPass += applied.length;
    }
    if (appliedThisPass === 0) break;
    result = lint(targets);
  }
  return { result, files: [...files.values()] };
}
