/**
 * "Did you mean" suggestions for misspelt field names and enum values: a case-insensitive match,
 * then a name that ends with what was written (`FP32` → `TYPE_FP32`), then the closest name by
 * edit distance when it is close enough to be a plausible typo.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    prev = cur;
  }
  return prev[b.length]!;
}

export function closestName(written: string, candidates: Iterable<string>): string | undefined {
  const names = [...candidates];
  if (written.length > 200) return undefined;
  const lower = written.toLowerCase();
  const caseMatch = names.find((n) => n.toLowerCase() === lower);
  if (caseMatch) return caseMatch;
  const suffix = names.filter((n) => n.toLowerCase().endsWith(`_${lower}`));
  if (suffix.length === 1) return suffix[0];
  // A truncated name (`max_batch` for `max_batch_size`).
  const prefix = names.filter((n) => lower.length >= 3 && n.toLowerCase().startsWith(lower));
  if (prefix.length === 1) return prefix[0];
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const n of names) {
    const d = editDistance(lower, n.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = n;
    }
  }
  const limit = Math.max(2, Math.floor(written.length / 3));
  return bestDistance <= limit ? best : undefined;
}

/** A name reduced to what a respelling keeps: lower case, no '_' or '-', no plural 's'. */
function spellingKey(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '').replace(/s$/, '');
}

/**
 * The one candidate that `written` merely respells (case, '_'/'-' separators, a plural 's':
 * `datatype` → `data_type`, `max_queue_delay_microsecond` → `max_queue_delay_microseconds`),
 * or undefined when none or several do. Renaming to it cannot change what the user meant, so
 * `validate --fix` applies it; any other "did you mean" stays a suggestion.
 */
export function respelledName(written: string, candidates: Iterable<string>): string | undefined {
  const key = spellingKey(written);
  const matches = [...candidates].filter((c) => c !== written && spellingKey(c) === key);
  return matches.length === 1 ? matches[0] : undefined;
}
