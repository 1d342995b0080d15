/**
 * Finds model-load failures in a tritonserver log. Triton logs each as one glog error line,
 * `E1201 10:00:00.123456 1 model_lifecycle.cc:NNN] failed to load 'm' version 1: Invalid argument: …`
 * (ModelLifeCycle: "failed to load '" << model_id << "' version " << version << ": " <<
 * status.AsString(), where AsString() is "<code>: <message>"). Error lines without that envelope
 * that carry a known load-error wording are kept too (some backends log the cause on its own line).
 * Lines may carry a prefix (kubectl's timestamps, a container name): the search is not anchored.
 */
import { matchLoadError, type LoadErrorPattern } from './patterns.js';

export interface LoadFailure {
  /** 1-based line in the log. */
  line: number;
  model?: string;
  version?: string;
  /** Triton's status code text: "Invalid argument", "Internal", … */
  code?: string;
  message: string;
  pattern?: LoadErrorPattern;
}

const ENVELOPE = /failed to load '([^']*)' version (-?\d+): (Unknown|Internal|Not found|Invalid argument|Unavailable|Unsupported|Already exists): (.*)$/;
const GLOG_ERROR = /(?:^|\s)E\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [^\]]+\] (.*)$/;
/** A log line longer than this is not Triton's (a dumped tensor?): it is cut before matching. */
const MAX_LINE = 16 * 1024;

/** "… for <model>" ends most of Triton's validation messages: the model when no envelope names it. */
function trailingModel(message: string): string | undefined {
  return /(?:for model '([^']+)'| for ([A-Za-z0-9_.-]+))$/.exec(message)?.slice(1).find(Boolean);
}

/** Reads a log line by line (logs can be large: memory follows the longest line, not the file). */
export class LoadFailureScanner {
  readonly failures: LoadFailure[] = [];
  private readonly seen = new Set<string>();
  private lineNo = 0;

  push(raw: string): void {
    this.lineNo++;
    const text = raw.length > MAX_LINE ? raw.slice(0, MAX_LINE) : raw.replace(/\r$/, '');
    const env = ENVELOPE.exec(text);
    let failure: LoadFailure | undefined;
    if (env) {
      failure = { line: this.lineNo, model: env[1], version: env[2], code: env[3], message: env[4]!, pattern: matchLoadError(env[4]!) };
    } else {
      const glog = GLOG_ERROR.exec(text);
      const pattern = glog ? matchLoadError(glog[1]!) : undefined;
      if (glog && pattern) failure = { line: this.lineNo, model: trailingModel(glog[1]!), message: glog[1]!, pattern };
    }
    if (!failure) return;
    const key = `${failure.model}\0${failure.message}`;
    if (this.seen.has(key)) return; // Triton repeats a failure on every poll of the repository
    this.seen.add(key);
    this.failures.push(failure);
  }
}

export function findLoadFailures(log: string): LoadFailure[] {
  const scanner = new LoadFailureScanner();
  for (const line of log.split('\n')) scanner.push(line);
  return scanner.failures;
}
