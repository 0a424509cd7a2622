/**
 * Turns the server's Prometheus samples, polled every few seconds, into the Health desk's
 * series: per-second rates of the cumulative counters between two polls (a counter that went
 * down was reset by a restart: its new value is the increase since then), the mean
 * first-token latency over the interval, and the gauges as they are. A name the server does
 * not export gives null points (an empty chart), never an error.
 */
import type { MetricSample, MetricsSnapshot } from '@/operator/lib/types';

export const CHAT_OUTCOMES = ['stored', 'stopped', 'refused', 'failed'] as const;
export type ChatOutcome = (typeof CHAT_OUTCOMES)[number];

/** How long the desk keeps points in memory. */
export const WINDOW_SECONDS = 600;

export interface HealthPoint {
  /** Seconds since the epoch (uPlot's x scale). */
  t: number;
  requestsPerSecond: number | null;
  errorsPerSecond: number | null;
  /** Chat turns per minute, by outcome. */
  turnsPerMinute: Record<ChatOutcome, number | null>;
  /** Mean model first-token latency over the interval, in milliseconds. */
  firstTokenMs: number | null;
  queueDepth: number | null;
  sockets: number | null;
}

/** The sum of the samples named `name` whose labels pass `keep`; null when there is none. */
export function total(
  snapshot: MetricsSnapshot,
  name: string,
  keep: (labels: Record<string, string>) => boolean = () => true,
): number | null {
  let sum: number | null = null;
  for (const sample of snapshot.samples as MetricSample[]) {
    if (sample.name !== name || !keep(sample.labels ?? {}) || !Number.isFinite(sample.value)) continue;
    sum = (sum ?? 0) + sample.value;
  }
  return sum;
}

/** The increase of a cumulative counter from `before` to `after`, a reset counted from zero. */
export function increase(before: number | null, after: number | null): number | null {
  if (before === null || after === null) return null;
  return after >= before ? after - before : after;
}

function perSecond(before: number | null, after: number | null, seconds: number): number | null {
  const grown = increase(before, after);
  return grown === null ? null : grown / seconds;
}

const is5xx = (labels: Record<string, string>) => /^5\d\d$/.test(labels.status ?? '');

/** The point for the interval from `previous` to `current`; null when no time passed. */
export function healthPoint(previous: MetricsSnapshot, current: MetricsSnapshot): HealthPoint | null {
  const seconds = (current.at - previous.at) / 1000;
  if (!(seconds > 0)) return null;
  const both = (name: string, keep?: (labels: Record<string, string>) => boolean) =>
    [total(previous, name, keep), total(current, name, keep)] as const;

  const turnsPerMinute = {} as Record<ChatOutcome, number | null>;
  for (const outcome of CHAT_OUTCOMES) {
    const rate = perSecond(...both('amora_chat_replies_total', (l) => l.outcome === outcome), seconds);
    turnsPerMinute[outcome] = rate === null ? null : rate * 60;
  }
  const firstToken = (l: Record<string, string>) => l.phase === 'first_token';
  const sum = increase(...both('amora_chat_turn_phase_seconds_sum', firstToken));
  const count = increase(...both('amora_chat_turn_phase_seconds_count', firstToken));
  const firstTokenMs = sum !== null && count !== null && count > 0 ? (sum / count) * 1000 : null;

  return {
    t: current.at / 1000,
    requestsPerSecond: perSecond(...both('amora_http_requests_total'), seconds),
    errorsPerSecond: perSecond(...both('amora_http_requests_total', is5xx), seconds),
    turnsPerMinute,
    firstTokenMs,
    queueDepth: total(current, 'amora_chat_queue_depth'),
    sockets: total(current, 'amora_ws_sockets'),
  };
}

/** `points` with `point` added, keeping only the last WINDOW_SECONDS. */
export function keepWindow(points: HealthPoint[], point: HealthPoint): HealthPoint[] {
  const from = point.t - WINDOW_SECONDS;
  return [...points.filter((p) => p.t >= from && p.t < point.t), point];
}

/** uPlot's column data: the x values then one column per series. */
export function columns(points: HealthPoint[], ...series: ((p: HealthPoint) => number | null)[]) {
  return [points.map((p) => p.t), ...series.map((read) => points.map(read))] as [number[], ...(number | null)[][]];
}
