/** Health desk (admin): the server's metrics polled every 5 s, the last 10 minutes charted. */
import { useEffect, useMemo, useRef, useState } from 'react';
import { LoadError } from '@/operator/components/bits';
import { Chart } from '@/operator/components/chart';
import { opGet } from '@/operator/lib/api';
import { CHAT_OUTCOMES, columns, healthPoint, keepWindow, type HealthPoint } from '@/operator/lib/metrics';
import type { MetricsSnapshot } from '@/operator/lib/types';

export const POLL_MS = 5000;

const REQUESTS = ['requests/s'];
const ERRORS = ['5xx/s'];
const TURNS = [...CHAT_OUTCOMES];
const LATENCY = ['first token (ms)'];
const QUEUE = ['waiting turns'];
const SOCKETS = ['open sockets'];

export function HealthPage() {
  const [points, setPoints] = useState<HealthPoint[]>([]);
  const [error, setError] = useState<unknown>(null);
  const previous = useRef<MetricsSnapshot | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    const poll = async () => {
      try {
        const snapshot = await opGet<MetricsSnapshot>('metrics', undefined, controller.signal);
        setError(null);
        const before = previous.current;
        previous.current = snapshot;
        const point = before ? healthPoint(before, snapshot) : null;
        if (point) setPoints((old) => keepWindow(old, point));
      } catch (caught) {
        if (!controller.signal.aborted) setError(caught);
      }
    };
    void poll();
    const timer = window.setInterval(() => void poll(), POLL_MS);
    return () => {
      controller.abort();
      window.clearInterval(timer);
    };
  }, []);

  const data = useMemo(
    () => ({
      requests: columns(points, (p) => p.requestsPerSecond),
      errors: columns(points, (p) => p.errorsPerSecond),
      turns: columns(points, ...CHAT_OUTCOMES.map((o) => (p: HealthPoint) => p.turnsPerMinute[o])),
      latency: columns(points, (p) => p.firstTokenMs),
      queue: columns(points, (p) => p.queueDepth),
      sockets: columns(points, (p) => p.sockets),
    }),
    [points],
  );

  return (
    <div>
      <h1>Health</h1>
      <p className="op-muted">Polled every 5 s; the last 10 minutes stay in this tab only. {points.length} point(s).</p>
      <LoadError error={error} />
      <div className="op-charts">
        <Chart
          title="Requests per second"
          labels={REQUESTS}
          unit="req/s"
          data={data.requests}
          testId="chart-requests"
        />
        <Chart title="5xx errors per second" labels={ERRORS} unit="err/s" data={data.errors} testId="chart-errors" />
        <Chart
          title="Chat turns per minute by outcome"
          labels={TURNS}
          unit="turns/min"
          data={data.turns}
          testId="chart-turns"
        />
        <Chart
          title="Mean model first-token latency"
          labels={LATENCY}
          unit="ms"
          data={data.latency}
          testId="chart-latency"
        />
        <Chart
          title="Queue depth (turns waiting for the model)"
          labels={QUEUE}
          unit="turns"
          data={data.queue}
          testId="chart-queue"
        />
        <Chart title="Open sockets" labels={SOCKETS} unit="sockets" data={data.sockets} testId="chart-sockets" />
      </div>
    </div>
  );
}
