/**
 * The unified diff `validate --fix-dry-run` prints: one git-style section per file
 * (`diff --git a/… b/…`, `---`/`+++`, hunks with 3 lines of context), so it can be read as a
 * patch or applied with `git apply`.
 */
import { createTwoFilesPatch } from 'diff';
import type { FixedFile } from './fixes.js';

function posix(display: string): string {
  return display.split('\\').join('/').replace(/^\.\//, '');
}

export function unifiedDiff(files: readonly FixedFile[]): string {
  return files.map((f) => {
    const name = posix(f.display);
    // createTwoFilesPatch starts with a "===" rule; git's patches start with "diff --git".
    const patch = createTwoFilesPatch(`a/${name}`, `b/${name}`, f.before, f.after, undefined, undefined, { context: 3 });
    return `diff --git a/${name} b/${name}\n${patch.slice(patch.indexOf('--- '))}`;
  }).join('');
}
