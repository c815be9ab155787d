// A peer's traffic over time, from the router's traffic history: the last 48 hours in
// 5-minute steps, 35 days in hours or 400 days in days, drawn with uPlot (received and sent
// as seen from the router), with the totals in words and the points in a table for
// screen readers and keyboards. uPlot (a third of the page's script) is loaded when a chart
// is first drawn, not with the page; its stylesheet stays in the page's.
import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { get } from '../api';
import { formatBytes, formatDate } from '../format';
import { currentLanguage, t } from '../i18n';
import { LoadError, useLoad } from '../load';
import { filledSeries } from '../series';
import type { UsageSeries } from '../types';

type Series = UsageSeries;
type Step = Series['step'];

/** Each range's length, said by Intl in the page's language ("48 hours", "48 Stunden"). */
const RANGES: { step: Step; n: number; unit: 'hour' | 'day' }[] = [
  { step: '5m', n: 48, unit: 'hour' },
  { step: '1h', n: 35, unit: 'day' },
  { step: '1d', n: 400, unit: 'day' },
];
const rangeWords = (r: (typeof RANGES)[number]): string =>
  new Intl.NumberFormat(currentLanguage(), { style: 'unit', unit: r.unit, unitDisplay: 'long' }).format(r.n);

/** A tick of the time axis: the hour under a day between ticks, else the day. */
const axisTime = (seconds: number, incr: number): string => new Date(seconds * 1000)
  .toLocaleString(currentLanguage(), incr < 86_400 ? { hour: '2-digit', minute: '2-digit' } : { day: 'numeric', month: 'short' });

function Chart({ series }: { series: Series }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || series.points.length === 0) return undefined;
    const data: uPlot.AlignedData = filledSeries(series, Date.now() / 1000);
    let plot: uPlot | undefined;
    let gone = false;
    void import('uplot').then(({ default: UPlot }) => {
      if (gone) return;
      plot = new UPlot({
        width: Math.max(280, el.clientWidth),
        height: 220,
        series: [
          // Times by Intl in the page's language, not uPlot's English names and 12-hour clock.
          { value: (_u, v) => (v === null ? '–' : formatDate(new Date(v * 1000).toISOString())) },
          { label: t('traffic.to'), stroke: '#2a6fdb', width: 2, value: (_u, v) => (v === null ? '–' : formatBytes(v)) },
          { label: t('traffic.from'), stroke: '#c2571a', width: 2, value: (_u, v) => (v === null ? '–' : formatBytes(v)) },
        ],
        // Traffic starts at 0: an axis from the smallest value would make a quiet hour look busy.
        scales: { y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        axes: [{ values: (_u, ticks, _axis, _space, incr) => ticks.map((v) => axisTime(v, incr)) }, { values: (_u, ticks) => ticks.map((v) => formatBytes(v)), size: 70 }],
        // What is drawn, for a reader of the page's source (and its tests): how many buckets, where the axis starts.
        hooks: { draw: [(u) => { el.dataset.buckets = String(u.data[0].length); el.dataset.yMin = String(u.scales.y.min); }] },
      }, data, el);
    });
    return () => { gone = true; plot?.destroy(); };
  }, [series]);
  return <div class="chart" ref={box} aria-hidden="true" />;
}

export function PeerTraffic({ peerId }: { peerId: number }) {
  const [step, setStep] = useState<Step>('5m');
  const loaded = useLoad(() => get<Series>(`/api/peers/${peerId}/usage?step=${step}`), [peerId, step]);
  const s = loaded.data;
  const rx = s ? s.points.reduce((n, p) => n + p.rxBytes, 0) : 0;
  const tx = s ? s.points.reduce((n, p) => n + p.txBytes, 0) : 0;
  const range = rangeWords(RANGES.find((r) => r.step === step)!);
  return (
    <section aria-labelledby="traffic-h">
      <div class="bar">
        <h2 id="traffic-h">{t('peer.sec.traffic')}</h2>
        <div role="group" aria-label={t('traffic.range')}>
          {RANGES.map((r) => (
            <button key={r.step} type="button" class={r.step === step ? 'primary' : 'quiet'} aria-pressed={r.step === step} onClick={() => setStep(r.step)}>{rangeWords(r)}</button>
          ))}
        </div>
      </div>
      <LoadError error={loaded.error} code={loaded.code} reload={loaded.reload} />
      {s && s.points.length === 0 && <p>{t('traffic.none', { range })}</p>}
      {s && s.points.length > 0 && (
        <>
          <p class="traffic-total">{t('traffic.total', { range, tx: formatBytes(tx), rx: formatBytes(rx) })}</p>
          <Chart series={s} />
          <details>
            <summary>{t('traffic.table')}</summary>
            <div class="table-wrap">
              <table>
                <thead><tr><th scope="col">{t('schedule.from')}</th><th scope="col">{t('traffic.to')}</th><th scope="col">{t('traffic.from')}</th></tr></thead>
                <tbody>{s.points.map((p) => <tr key={p.t}><td>{formatDate(new Date(p.t).toISOString())}</td><td>{formatBytes(p.txBytes)}</td><td>{formatBytes(p.rxBytes)}</td></tr>)}</tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </section>
  );
}
