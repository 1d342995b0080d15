/**
 * Each measured request's timestamps, for --profile-export-file (perf_analyzer's profile export):
 * when it was sent, when each of its responses came, and its sequence id. A driver keeps them for
 * its window (RequestRecorder) and hands them over with the window's histogram, as plain typed
 * arrays that cross a worker thread's message port by copy.
 *
 * Times are milliseconds since the Unix epoch (performance.timeOrigin + performance.now(), so the
 * worker threads' clocks agree), about 0.25 µs apart at today's dates: the export writes whole
 * microseconds.
 */

/** What one window's requests left: request i has responseCounts[i] entries of responses, in order. */
export interface RequestLogData {
  starts: Float64Array;
  /** 0: the request carried no sequence id. */
  sequenceIds: Float64Array;
  responseCounts: Uint32Array;
  responses: Float64Array;
  /** Requests measured but not kept: the recorder's timestamp budget was spent. */
  dropped: number;
}

/** Whether, and how much, a driver records during one setting (the budget is its share of the export's bound). */
export interface RecordPlan {
  /** Timestamps (a request's start and each of its responses) this driver may keep during the setting. */
  budget: number;
}

export const epochMs = (performanceNow: number): number => performance.timeOrigin + performanceNow;

/** A request being recorded: its start and the responses seen so far. */
export interface InFlightRecord {
  start: number;
  responses: number[];
  /** A response came after the budget was spent: the request is counted as dropped. */
  overflow: boolean;
}

/**
 * One driver's recorder for one setting. Every timestamp is taken from one budget as it is seen
 * (a request's start when it is sent, each response as it comes), so memory stays within the
 * budget even with many long streams in flight; a request that does not fit is counted, not kept.
 */
export class RequestRecorder {
  private starts: number[] = [];
  private sequenceIds: number[] = [];
  private responseCounts: number[] = [];
  private responses: number[] = [];
  private dropped = 0;

  /** @param budget timestamps this recorder may keep over the setting, across its windows */
  constructor(private budget: number) {}

  /** A request is sent (start from performance.now()); undefined when the budget is spent. */
  begin(start: number): InFlightRecord | undefined {
    if (this.budget < 1) return undefined;
    this.budget -= 1;
    return { start, responses: [], overflow: false };
  }

  /** One of its responses came. */
  response(record: InFlightRecord, at: number): void {
    if (this.budget < 1) {
      record.overflow = true;
      return;
    }
    this.budget -= 1;
    record.responses.push(at);
  }

  /** The request finished; undefined (not begun) or overflowed requests are counted as dropped. */
  finish(record: InFlightRecord | undefined, sequenceId: number): void {
    if (!record || record.overflow) {
      this.dropped += 1;
      return;
    }
    this.starts.push(epochMs(record.start));
    this.sequenceIds.push(sequenceId);
    this.responseCounts.push(record.responses.length);
    for (const t of record.responses) this.responses.push(epochMs(t));
  }

  /** The window's records, and a fresh start for the next window (the budget carries on). */
  take(): RequestLogData {
    const data: RequestLogData = {
      starts: Float64Array.from(this.starts),
      sequenceIds: Float64Array.from(this.sequenceIds),
      responseCounts: Uint32Array.from(this.responseCounts),
      responses: Float64Array.from(this.responses),
      dropped: this.dropped,
    };
    this.starts = [];
    this.sequenceIds = [];
    this.responseCounts = [];
    this.responses = [];
    this.dropped = 0;
    return data;
  }
}
