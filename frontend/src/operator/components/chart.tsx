/** A uPlot line chart that follows its data; an empty data set shows "No data". */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const COLOURS = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2'];

export function Chart({
  title,
  labels,
  data,
  unit,
  testId,
}: {
  title: string;
  labels: string[];
  data: [number[], ...(number | null)[][]];
  unit: string;
  testId: string;
}) {
  const holder = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const empty = data.slice(1).every((column) => column.every((value) => value === null));

  useEffect(() => {
    const element = holder.current;
    if (!element) return;
    const chart = new uPlot(
      {
        width: Math.max(280, element.clientWidth || 480),
        height: 180,
        // Rates and gauges are never negative: the y scale starts at 0 and is at least 0..1,
        // so a flat series (no 5xx at all, one socket) still draws a line.
        scales: {
          x: { time: true },
          y: { range: (_u, _min, max) => [0, max !== null && Number.isFinite(max) && max > 0 ? max * 1.15 : 1] },
        },
        axes: [{}, { label: unit, size: 60 }],
        series: [
          {},
          ...labels.map((label, i) => ({ label, stroke: COLOURS[i % COLOURS.length], width: 2, spanGaps: false })),
        ],
      },
      [[], ...labels.map(() => [])] as unknown as uPlot.AlignedData,
      element,
    );
    plot.current = chart;
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(280, element.clientWidth), height: 180 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = null;
    };
  }, [labels, unit]);

  useEffect(() => {
    plot.current?.setData(data as unknown as uPlot.AlignedData);
  }, [data]);

  return (
    <section className="op-card op-chart" data-testid={testId} aria-label={title}>
      <h3>
        {title} {empty && <span className="op-muted">(no data yet)</span>}
      </h3>
      <div ref={holder} />
    </section>
  );
}
