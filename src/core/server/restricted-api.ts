/**
 * Triton's --http-restricted-api / --grpc-restricted-protocol: `<api list>:<key>=<value>`. A request
 * to an API in a restricted group must carry header `<key>` (gRPC: metadata
 * `triton-grpc-protocol-<key>`) with exactly `<value>`; otherwise HTTP answers 403 and gRPC
 * UNAVAILABLE, with Triton's wording.
 */
import { isHttpHeaderName } from '../kserve/header-name.js';
import { UsageError } from '../../errors.js';

export const RESTRICTED_APIS = ['health', 'metadata', 'inference', 'shared-memory', 'model-config', 'model-repository', 'statistics', 'trace', 'logging'] as const;
export type RestrictedApi = (typeof RESTRICTED_APIS)[number];

export interface Restriction {
  /** The header name, lower-cased (HTTP) or the gRPC metadata key without its prefix. */
  key: string;
  value: string;
}

export type Restrictions = ReadonlyMap<RestrictedApi, Restriction>;

/** Triton's prefix of the gRPC metadata key (gRPC headers are lower-case). */
export const GRPC_RESTRICTED_PREFIX = 'triton-grpc-protocol-';

/** Parses every occurrence of `flag`; an API may be in one group only. */
export function parseRestrictions(specs: string[], flag: string): Map<RestrictedApi, Restriction> {
  const out = new Map<RestrictedApi, Restriction>();
  for (const spec of specs) {
    const m = /^([^:]+):([^=]+)=(.*)$/.exec(spec);
    if (!m) throw new UsageError(`${flag} must be <api list>:<header>=<value>, got '${spec}'`, `for example ${flag} model-repository,statistics:admin-key=secret`);
    const key = m[2]!.trim().toLowerCase();
    if (!isHttpHeaderName(key)) throw new UsageError(`${flag}: '${m[2]}' is not a valid header name`);
    for (const raw of m[1]!.split(',')) {
      const api = raw.trim() as RestrictedApi;
      if (!RESTRICTED_APIS.includes(api)) throw new UsageError(`${flag}: unknown API '${raw.trim()}'`, `the APIs are ${RESTRICTED_APIS.join(', ')}`);
      if (out.has(api)) throw new UsageError(`${flag}: API '${api}' is in more than one group`, 'name each API once');
      out.set(api, { key, value: m[3]! });
    }
  }
  return out;
}

export function httpRestrictedMessage(key: string): string {
  return `This API is restricted, expecting header '${key}'`;
}

export function grpcRestrictedMessage(key: string): string {
  return `This protocol is restricted, expecting header '${GRPC_RESTRICTED_PREFIX}${key}'`;
}
