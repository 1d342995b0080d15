/** Turns transport failures into one-line errors that say what to do. */
import { GebeError } from '../../../errors.js';

export function unreachable(url: string, err: NodeJS.ErrnoException): GebeError {
  const why = err.code ?? err.message;
  return new GebeError(`cannot reach a KServe v2 server at ${url} (${why}); start one with \`gebe serve <repo>\` or pass the right -u host:port`);
}
