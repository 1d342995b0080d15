/**
 * A shape for an error message: a client may send a million dimensions, and the message (a gRPC
 * metadata entry, a log line) must stay small, so only the first 16 are written.
 */
export function formatShape(shape: readonly unknown[]): string {
  const head = shape.slice(0, 16).join(',');
  return shape.length > 16 ? `[${head},… (${shape.length} dimensions)]` : `[${head}]`;
}
