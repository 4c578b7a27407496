import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatKsh } from '../../../shared/money';
import type { DailySales } from '../../../shared/schemas/dashboard';

const BAR_COLOUR = '#198754';
const compactKsh = new Intl.NumberFormat('en-KE', { notation: 'compact', maximumFractionDigits: 1 });
const dayLabel = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

/** "25 Nov" for "2026-11-25": the day as the shop's calendar names it, whatever the browser's zone. */
function shortDay(day: string | undefined): string {
  return day ? dayLabel.format(new Date(`${day}T00:00:00Z`)) : '';
}

/**
 * The dashboard's bar chart of daily sales (uPlot, loaded with the admin's dashboard only). The
 * x axis counts days 0…29, labelled with their Nairobi dates, so the browser's own time zone
 * cannot shift a bar to the wrong day. It follows its container's width.
 */
export default function SalesChart({ days, height }: { days: DailySales[]; height: number }) {
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const data: uPlot.AlignedData = [days.map((_, i) => i), days.map((d) => d.total)];
    const bars = uPlot.paths.bars?.({ size: [0.7, 24] });
    const chart = new uPlot(
      {
        width: Math.max(element.clientWidth, 200),
        height,
        legend: { show: false },
        cursor: { y: false, points: { show: false } },
        scales: {
          x: { time: false, range: [-0.5, days.length - 0.5] },
          y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
        },
        series: [
          {},
          {
            label: 'Sales',
            stroke: BAR_COLOUR,
            // Bars are their fill alone: an outline would draw a line along the axis for every day without sales.
            width: 0,
            fill: `${BAR_COLOUR}cc`,
            ...(bars && { paths: bars }),
            points: { show: false },
          },
        ],
        axes: [
          {
            space: 44,
            incrs: [1, 2, 5, 7, 10, 15],
            values: (_u, splits) => splits.map((i) => shortDay(days[i]?.day)),
          },
          { size: 52, values: (_u, splits) => splits.map((v) => compactKsh.format(v)) },
        ],
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 200), height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [days, height]);

  const total = days.reduce((sum, d) => sum + d.total, 0);
  const first = days[0]?.day;
  const last = days[days.length - 1]?.day;
  return (
    <figure className="mb-0">
      <div
        ref={box}
        role="img"
        aria-label={`Daily sales from ${shortDay(first)} to ${shortDay(last)}: ${formatKsh(total)} in all`}
        data-testid="sales-chart"
      />
      <details className="mt-2 small">
        <summary>Show as a table</summary>
        <table className="table table-sm mt-2 mb-0">
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col" className="text-end">
                Orders
              </th>
              <th scope="col" className="text-end">
                Sales
              </th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.day}>
                <td>{shortDay(d.day)}</td>
                <td className="text-end">{d.orders}</td>
                <td className="text-end text-nowrap">{formatKsh(d.total)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
