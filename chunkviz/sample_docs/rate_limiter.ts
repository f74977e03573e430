/**
 * A token-bucket rate limiter for the field station's upload service.
 *
 * Each station may send a burst of readings after it has been offline, but the
 * server should never receive more than a steady trickle per station. A bucket
 * holds tokens; every upload takes one, and tokens come back at a fixed rate.
 */

import { EventEmitter } from "events";

/** How many tokens a new bucket starts with, unless the options say otherwise. */
export const DEFAULT_CAPACITY = 20;

/** Tokens added back per second. */
export const DEFAULT_REFILL_PER_SECOND = 0.5;

/** The settings of one limiter; every field is optional. */
export interface LimiterOptions {
  /** The largest burst a station may send at once. */
  capacity?: number;
  /** How quickly a station earns its tokens back. */
  refillPerSecond?: number;
  /** The clock, in milliseconds; tests pass a fake one. */
  now?: () => number;
}

/** Why an upload was refused: the station must wait this long before trying again. */
export type Refusal = { station: string; retryAfterMs: number };

/**
 * One bucket per station. The limiter emits "refused" with a Refusal whenever a
 * station runs out of tokens, so the dashboard can show who is being throttled.
 */
export class RateLimiter extends EventEmitter {
  private readonly capacity: number;
  private readonly refillPerSecond: number;
  private readonly now: () => number;
  private readonly buckets = new Map<string, { tokens: number; updated: number }>();

  constructor(options: LimiterOptions = {}) {
    super();
    this.capacity = options.capacity ?? DEFAULT_CAPACITY;
    this.refillPerSecond = options.refillPerSecond ?? DEFAULT_REFILL_PER_SECOND;
    this.now = options.now ?? (() => Date.now());
  }

  /** Takes one token for the station; false (and a "refused" event) when none is left. */
  tryTake(station: string): boolean {
    const bucket = this.refill(station);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return true;
    }
    const missing = 1 - bucket.tokens;
    this.emit("refused", { station, retryAfterMs: Math.ceil((missing / this.refillPerSecond) * 1000) });
    return false;
  }

  /** The tokens a station has right now, after the refill since its last upload. */
  available(station: string): number {
    return Math.floor(this.refill(station).tokens);
  }

  /** Adds the tokens earned since the bucket was last touched, up to the capacity. */
  private refill(station: string) {
    const now = this.now();
    const bucket = this.buckets.get(station) ?? { tokens: this.capacity, updated: now };
    const earned = ((now - bucket.updated) / 1000) * this.refillPerSecond;
    bucket.tokens = Math.min(this.capacity, bucket.tokens + earned);
    bucket.updated = now;
    this.buckets.set(station, bucket);
    return bucket;
  }
}

/**
 * Replays a day of upload attempts through a limiter and reports, per station,
 * how many uploads went through and how long the longest wait was. The operators
 * run it on yesterday's log before changing the capacity or the refill rate.
 */
export function replayDay(attempts: Array<{ station: string; at: number }>, options: LimiterOptions = {}) {
  let clock = 0;
  const limiter = new RateLimiter({ ...options, now: () => clock });
  const accepted = new Map<string, number>();
  const longestWait = new Map<string, number>();
  limiter.on("refused", (refusal: Refusal) => {
    const previous = longestWait.get(refusal.station) ?? 0;
    longestWait.set(refusal.station, Math.max(previous, refusal.retryAfterMs));
  });
  for (const attempt of [...attempts].sort((a, b) => a.at - b.at)) {
    clock = attempt.at;
    if (limiter.tryTake(attempt.station)) {
      accepted.set(attempt.station, (accepted.get(attempt.station) ?? 0) + 1);
    }
  }
  const stations = new Set(attempts.map((attempt) => attempt.station));
  return [...stations].sort().map((station) => ({
    station,
    accepted: accepted.get(station) ?? 0,
    longestWaitMs: longestWait.get(station) ?? 0,
  }));
}
