/**
 * Why a request failed: the native core's one table (native/src/executor/request_failure.h),
 * read from the addon, so HTTP statuses, gRPC codes and metric labels are written once, in C++.
 * The names below are the type-level view of the same table (a test checks they agree).
 */
import { loadNativeAddon } from './native.js';

export type FailureName =
  | 'NONE'
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'UNSUPPORTED'
  | 'TOO_LARGE'
  | 'UNAVAILABLE'
  | 'QUEUE_FULL'
  | 'QUEUE_TIMEOUT'
  | 'DEADLINE_EXCEEDED'
  | 'CANCELLED'
  | 'BACKEND'
  | 'INTERNAL';

/** nv_inference_request_failure{reason}. */
export type MetricReason = 'REJECTED' | 'CANCELED' | 'BACKEND' | 'OTHER';

export interface FailureTraits {
  name: FailureName;
  httpStatus: number;
  grpcCode: number;
  metricReason: MetricReason;
}

let table: FailureTraits[] | undefined;
let byName: Map<FailureName, FailureTraits> | undefined;

/** The table, indexed by the native FailureReason value. */
export function failureTable(): readonly FailureTraits[] {
  if (!table) {
    const executor = loadNativeAddon().executor as { failureReasons(): FailureTraits[] };
    table = executor.failureReasons();
    byName = new Map(table.map((t) => [t.name, t]));
  }
  return table;
}

/** The row of a native reason value (as the executor binding reports it); INTERNAL if unknown. */
export function failureOf(reason: number): FailureTraits {
  const rows = failureTable();
  return rows[reason] ?? traitsOf('INTERNAL');
}

/** The native reason value of a failure name (what the executor binding takes). */
export function failureIndex(name: FailureName): number {
  return failureTable().findIndex((t) => t.name === name);
}

export function traitsOf(name: FailureName): FailureTraits {
  failureTable();
  return byName!.get(name)!;
}
