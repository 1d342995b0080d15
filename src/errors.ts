/**
 * Typed errors. `src/cli.ts` is the one place that maps them to exit codes:
 * 0 success, 1 findings (e.g. validate found errors), 2 usage or fatal error.
 */
export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_FATAL = 2;

/** An error the user caused and can fix: printed without a stack trace (unless --verbose). */
export class GebeError extends Error {
  readonly exitCode: number;
  /** One line telling the user how to fix it. */
  readonly hint?: string;

  constructor(message: string, options: { hint?: string; exitCode?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'GebeError';
    this.exitCode = options.exitCode ?? EXIT_FATAL;
    this.hint = options.hint;
  }
}

/** Bad flags or arguments. */
export class UsageError extends GebeError {
  constructor(message: string, hint?: string) {
    super(message, { hint, exitCode: EXIT_FATAL });
    this.name = 'UsageError';
  }
}

