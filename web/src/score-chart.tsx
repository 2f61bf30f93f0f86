import { useEffect, useId, useRef, useState, type MouseEvent } from 'react';
import { formatLocal, formatShort } from './cadence.ts';
import { useRouter } from './router.tsx';
import { describeSeries, positionOf, segments, type ScorePoint } from './score-series.ts';

const HEIGHT = 220;
const MARGIN = { top: 26, right: 20, bottom: 34, left: 40 };
const Y_TICKS = [0, 25, 50, 75, 100];
const STATUS_TEXT: Record<ScorePoint['status'], string> = {
  queued: 'queued',
  running: 'running',
  succeeded: 'succeeded',
  partial: 'finished partially',
  failed: 'failed',
};

/** The point's name for assistive technology and its hover label: when, the score or its absence, the status. */
function pointLabel(point: ScorePoint): string {
  const score = point.score === null ? 'no score' : `score ${point.score}${point.grade ? `, grade ${point.grade}` : ''}`;
  return `${formatLocal(point.at)}: ${score}; scan ${STATUS_TEXT[point.status]}`;
}

/** The chart's width follows its box, so its text stays the page's size on a phone and a desktop. */
function useWidth(): [React.RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(640);
  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.max(280, Math.floor(entry.contentRect.width))));
    observer.observe(box);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/** At most `count` evenly spread indices of `length` points, first and last included. */
function tickIndices(length: number, count: number): number[] {
  if (length <= count) return [...Array(length).keys()];
  return [...new Set([...Array(count).keys()].map((i) => Math.round((i * (length - 1)) / (count - 1))))];
}

/**
 * The mail posture score of a series of scans, drawn by us in SVG (DESIGN §15). Each scan is a
 * link to its page, reachable with Tab; a scan without a score is a dashed gap in the line, never a
 * zero. The figure says the series in words and carries the same numbers as a table.
 */
export function ScoreChart({
  title,
  subtitle,
  points,
  current,
}: {
  title: string;
  subtitle?: string;
  points: readonly ScorePoint[];
  /** The scan whose page this is: ringed, and named so in its label. */
  current?: string;
}) {
  const id = useId();
  const { navigate } = useRouter();
  const [boxRef, width] = useWidth();
  const [active, setActive] = useState<number | null>(null);
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (index: number) => MARGIN.left + positionOf(index, points.length) * plotWidth;
  const y = (score: number) => MARGIN.top + (1 - score / 100) * plotHeight;
  const indexOf = new Map(points.map((point, index) => [point.scanId, index]));
  const open = (event: MouseEvent, point: ScorePoint) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(`/scans/${point.scanId}`);
  };
  const ticks = tickIndices(points.length, Math.max(2, Math.floor(plotWidth / 120)));
  const shown = active === null ? null : points[active];

  return (
    <figure className="chart" aria-labelledby={`${id}-title`}>
      <figcaption>
        <h2 id={`${id}-title`} className="section-title">
          {title}
        </h2>
        <p id={`${id}-desc`} className="muted chart-desc">
          {subtitle && `${subtitle} `}
          {describeSeries(points)}
        </p>
      </figcaption>
      <div ref={boxRef} className="chart-box">
        <svg
          width={width}
          height={HEIGHT}
          viewBox={`0 0 ${width} ${HEIGHT}`}
          role="group"
          aria-labelledby={`${id}-title`}
          aria-describedby={`${id}-desc`}
          className="chart-svg"
        >
          <g aria-hidden="true" className="chart-axes">
            {Y_TICKS.map((tick) => (
              <g key={tick}>
                <line x1={MARGIN.left} x2={width - MARGIN.right} y1={y(tick)} y2={y(tick)} className="chart-grid" />
                <text x={MARGIN.left - 8} y={y(tick)} dy="0.32em" textAnchor="end" className="chart-tick">
                  {tick}
                </text>
              </g>
            ))}
            {ticks.map((index) => (
              <text
                key={index}
                x={x(index)}
                y={HEIGHT - 10}
                textAnchor={
                  points.length > 1 && index === 0 ? 'start' : points.length > 1 && index === points.length - 1 ? 'end' : 'middle'
                }
                className="chart-tick"
              >
                {formatShort(points[index].at).replace(/ [A-Z]{2,5}[+-]?\d*$/, '')}
              </text>
            ))}
          </g>
          <g aria-hidden="true">
            {points.map((point, index) =>
              point.score === null ? (
                <line key={point.scanId} x1={x(index)} x2={x(index)} y1={MARGIN.top} y2={MARGIN.top + plotHeight} className="chart-gap" />
              ) : null,
            )}
            {segments(points).map((run) => (
              <polyline
                key={run[0].scanId}
                points={run.map((point) => `${x(indexOf.get(point.scanId)!)},${y(point.score!)}`).join(' ')}
                className="chart-line"
              />
            ))}
          </g>
          {points.map((point, index) => {
            const cx = x(index);
            // A scan without a score is marked above the plot, never at a height that reads as a value.
            const cy = point.score === null ? MARGIN.top - 13 : y(point.score);
            return (
              <a
                key={point.scanId}
                href={`/scans/${point.scanId}`}
                aria-label={`${pointLabel(point)}${point.scanId === current ? ' (this scan)' : ''}`}
                aria-current={point.scanId === current ? 'page' : undefined}
                className={point.score === null ? 'chart-point chart-point-gap' : 'chart-point'}
                onClick={(event) => open(event, point)}
                onFocus={() => setActive(index)}
                onBlur={() => setActive(null)}
                onMouseEnter={() => setActive(index)}
                onMouseLeave={() => setActive(null)}
              >
                {/* A wide transparent target: a 5 px dot is hard to hit. */}
                <rect x={cx - 10} y={MARGIN.top - 22} width={20} height={plotHeight + 22} className="chart-hit" />
                <circle cx={cx} cy={cy} r={10} className={point.scanId === current ? 'chart-ring chart-ring-current' : 'chart-ring'} />
                {point.score === null ? (
                  <path d={`M${cx - 5},${cy - 5}L${cx + 5},${cy + 5}M${cx - 5},${cy + 5}L${cx + 5},${cy - 5}`} className="chart-gap-mark" />
                ) : (
                  <circle cx={cx} cy={cy} r={active === index ? 6 : 4.5} className={`chart-dot chart-dot-${point.status}`} />
                )}
              </a>
            );
          })}
          {shown && <Tip x={x(active!)} y={shown.score === null ? MARGIN.top - 13 : y(shown.score)} width={width} point={shown} />}
        </svg>
      </div>
      <ul className="chart-legend" aria-hidden="true">
        <li>
          <svg width="26" height="12" viewBox="0 0 26 12">
            <line x1="1" y1="6" x2="25" y2="6" className="chart-line" />
            <circle cx="13" cy="6" r="4" className="chart-dot" />
          </svg>
          Score of a finished scan (0–100)
        </li>
        <li>
          <svg width="14" height="14" viewBox="0 0 14 14">
            <path d="M2,2L12,12M2,12L12,2" className="chart-gap-mark" />
          </svg>
          No score: the scan failed, or its posture check did not complete
        </li>
      </ul>
      <details className="chart-table">
        <summary>Scores as a table</summary>
        <table className="table">
          <caption className="visually-hidden">{title}, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Scan</th>
              <th scope="col">Score</th>
              <th scope="col">Grade</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {points.map((point) => (
              <tr key={point.scanId}>
                <th scope="row">
                  <a href={`/scans/${point.scanId}`} onClick={(event) => open(event, point)}>
                    {formatLocal(point.at)}
                  </a>
                </th>
                <td data-label="Score">{point.score ?? 'No score'}</td>
                <td data-label="Grade">{point.grade ?? '—'}</td>
                <td data-label="Status">{STATUS_TEXT[point.status]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** The focused or hovered point's label, kept inside the plot. */
function Tip({ x, y, width, point }: { x: number; y: number; width: number; point: ScorePoint }) {
  const text = pointLabel(point).replace(/; scan /, ' · ');
  const boxWidth = Math.min(width - 8, text.length * 6.6 + 16);
  const left = Math.min(Math.max(4, x - boxWidth / 2), width - boxWidth - 4);
  const top = y - 40 < 2 ? y + 12 : y - 40;
  return (
    <g aria-hidden="true" className="chart-tip">
      <rect x={left} y={top} width={boxWidth} height={26} rx={5} />
      <text x={left + 8} y={top + 17}>
        {text}
      </text>
    </g>
  );
}
