/**
 * `-i, --protocol <http|grpc>` of the commands that can address a running server with -u (infer,
 * perf, warmup): one flag text, one check, one wording.
 */
import { UsageError } from '../errors.js';

export type RemoteProtocol = 'http' | 'grpc';

export const PROTOCOL_FLAG = '-i, --protocol <http|grpc>';

/** The protocol asked for (http by default); a usage error for another, or for -i without -u. */
export function parseProtocol(protocol: string | undefined, url: string | undefined): RemoteProtocol {
  if (protocol !== undefined && protocol !== 'http' && protocol !== 'grpc') {
    throw new UsageError(`-i/--protocol "${protocol}" is not one of http, grpc; e.g. -i/--protocol http`);
  }
  if (protocol !== undefined && url === undefined) throw new UsageError(`-i ${protocol} needs a server: add -u host:port`);
  return protocol ?? 'http';
}
