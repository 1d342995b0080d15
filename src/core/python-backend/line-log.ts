/**
 * A Python stub's stdout and stderr (the model's print() and tracebacks Python writes itself) as log
 * lines, each bounded in length; the last lines of stderr are kept to explain an exit.
 */
import type { Readable } from 'node:stream';

const MAX_LINE = 4096;
const KEPT_LINES = 20;

export class LineLog {
  private partial = '';
  private readonly recent: string[] = [];

  constructor(stream: Readable, private readonly emit: (line: string) => void) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => this.take(chunk));
    stream.on('end', () => this.flush());
  }

  /** The last lines written, oldest first. */
  tail(): string[] {
    return [...this.recent];
  }

  private take(chunk: string): void {
    const parts = (this.partial + chunk).split('\n');
    this.partial = parts.pop() ?? '';
    if (this.partial.length > MAX_LINE) {
      parts.push(this.partial);
      this.partial = '';
    }
    for (const line of parts) this.line(line);
  }

  private flush(): void {
    if (this.partial !== '') this.line(this.partial);
    this.partial = '';
  }

  private line(text: string): void {
    const line = text.length > MAX_LINE ? `${text.slice(0, MAX_LINE)}… (${text.length - MAX_LINE} more characters)` : text;
    this.recent.push(line);
    if (this.recent.length > KEPT_LINES) this.recent.shift();
    this.emit(line);
  }
}
