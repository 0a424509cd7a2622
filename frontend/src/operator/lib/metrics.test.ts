import { describe, expect, it } from 'vitest';
import {
  columns,
  healthPoint,
  increase,
  keepWindow,
  total,
  WINDOW_SECONDS,
  type HealthPoint,
} from '@/operator/lib/metrics';
import type { MetricSample, MetricsSnapshot } from '@/operator/lib/types';

const s = (name: string, value: number, labels: Record<string, string> = {}): MetricSample => ({ name, labels, value });
const snap = (at: number, samples: MetricSample[]): MetricsSnapshot => ({ at, samples });

describe('metrics to rates', () => {
  it('sums samples by name and labels; a missing name is null', () => {
    const x = snap(0, [
      s('amora_http_requests_total', 10, { status: '200' }),
      s('amora_http_requests_total', 3, { status: '503' }),
    ]);
    expect(total(x, 'amora_http_requests_total')).toBe(13);
    expect(total(x, 'amora_http_requests_total', (l) => l.status === '503')).toBe(3);
    expect(total(x, 'amora_ws_sockets')).toBeNull();
  });

  it('a counter that went down was reset: its new value is the increase', () => {
    expect(increase(100, 130)).toBe(30);
    expect(increase(100, 7)).toBe(7);
    expect(increase(null, 7)).toBeNull();
  });

  it('computes per-second rates, 5xx only, turns per minute and mean first-token latency', () => {
    const before = snap(1_000_000, [
      s('amora_http_requests_total', 100, { status: '200', route: 'a' }),
      s('amora_http_requests_total', 4, { status: '500' }),
      s('amora_http_requests_total', 1, { status: '404' }),
      s('amora_chat_replies_total', 10, { outcome: 'stored' }),
      s('amora_chat_replies_total', 2, { outcome: 'failed' }),
      s('amora_chat_turn_phase_seconds_sum', 5, { phase: 'first_token' }),
      s('amora_chat_turn_phase_seconds_count', 10, { phase: 'first_token' }),
      s('amora_chat_turn_phase_seconds_sum', 99, { phase: 'generate' }),
      s('amora_chat_turn_phase_seconds_count', 10, { phase: 'generate' }),
    ]);
    const after = snap(1_005_000, [
      s('amora_http_requests_total', 140, { status: '200', route: 'a' }),
      s('amora_http_requests_total', 9, { status: '500' }),
      s('amora_http_requests_total', 6, { status: '404' }),
      s('amora_chat_replies_total', 15, { outcome: 'stored' }),
      s('amora_chat_replies_total', 2, { outcome: 'failed' }),
      s('amora_chat_turn_phase_seconds_sum', 7, { phase: 'first_token' }),
      s('amora_chat_turn_phase_seconds_count', 14, { phase: 'first_token' }),
      s('amora_chat_turn_phase_seconds_sum', 999, { phase: 'generate' }),
      s('amora_chat_turn_phase_seconds_count', 11, { phase: 'generate' }),
      s('amora_chat_queue_depth', 3),
      s('amora_ws_sockets', 12),
    ]);
    const point = healthPoint(before, after)!;
    expect(point.t).toBe(1005);
    expect(point.requestsPerSecond).toBe(10); // (155 - 105) / 5
    expect(point.errorsPerSecond).toBe(1); // 500s only: (9 - 4) / 5
    expect(point.turnsPerMinute).toEqual({ stored: 60, failed: 0, stopped: null, refused: null });
    expect(point.firstTokenMs).toBe(500); // 2 s over 4 turns
    expect(point.queueDepth).toBe(3);
    expect(point.sockets).toBe(12);
  });

  it('no turns in the interval: no latency; no time passed: no point', () => {
    const a = snap(0, [s('amora_chat_turn_phase_seconds_count', 4, { phase: 'first_token' })]);
    const b = snap(5000, [s('amora_chat_turn_phase_seconds_count', 4, { phase: 'first_token' })]);
    expect(healthPoint(a, b)!.firstTokenMs).toBeNull();
    expect(healthPoint(a, a)).toBeNull();
  });

  it('keeps the last ten minutes', () => {
    const point = (t: number) => ({ t }) as HealthPoint;
    let points: HealthPoint[] = [];
    for (let t = 0; t <= 1200; t += 5) points = keepWindow(points, point(t));
    expect(points[0]!.t).toBe(1200 - WINDOW_SECONDS);
    expect(points.at(-1)!.t).toBe(1200);
    expect(columns(points.slice(-2), (p) => p.t * 2)).toEqual([
      [1195, 1200],
      [2390, 2400],
    ]);
  });
});
