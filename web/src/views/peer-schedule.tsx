// A peer's access schedule: weekly windows of local time in a time zone, outside which the
// peer is off (reason "schedule"). Edited as a list of windows and saved at once; the
// API's error names the field (`schedule.windows[0].from`) and is shown as it says it.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, describe } from '../api';
import { notify } from '../notice';
import type { Peer, Schedule, ScheduleWindow } from '../types';
import { WEEK, dayName, describeSchedule } from '../schedule-text';
import { t } from '../i18n';

const localZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
const fresh = (): ScheduleWindow => ({ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '08:00', to: '18:00' });

export function PeerSchedule({ peer, onSaved }: { peer: Peer; onSaved: (p: Peer) => void }) {
  const [on, setOn] = useState(peer.schedule !== null);
  const [zone, setZone] = useState(peer.schedule?.timezone ?? localZone());
  const [windows, setWindows] = useState<ScheduleWindow[]>(peer.schedule?.windows ?? [fresh()]);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  // A change made elsewhere (the live stream) is shown.
  useEffect(() => {
    setOn(peer.schedule !== null);
    if (peer.schedule) { setZone(peer.schedule.timezone); setWindows(peer.schedule.windows); }
  }, [JSON.stringify(peer.schedule)]);

  const change = (i: number, w: Partial<ScheduleWindow>) => setWindows((ws) => ws.map((x, j) => (j === i ? { ...x, ...w } : x)));
  const toggleDay = (i: number, day: ScheduleWindow['days'][number]) => change(i, {
    days: windows[i].days.includes(day) ? windows[i].days.filter((d) => d !== day) : WEEK.filter((d) => d === day || windows[i].days.includes(d)),
  });
  const save = async (e: Event) => {
    e.preventDefault();
    setError('');
    setBusy(true);
    const schedule: Schedule | null = on ? { timezone: zone.trim(), windows } : null;
    try {
      onSaved(await api<Peer>('PUT', `/api/peers/${peer.id}`, { schedule }));
      notify(on ? t('schedule.saved') : t('schedule.removed'));
    } catch (err) {
      setError(err instanceof ApiError ? err.message : describe(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="schedule-h">
      <h2 id="schedule-h">{t('schedule.title')}</h2>
      <p class="hint" id="schedule-hint">{t('schedule.hint', { now: describeSchedule(peer.schedule) })}</p>
      <form onSubmit={save} noValidate id="schedule-form">
        <label class="switch"><input id="schedule-on" type="checkbox" checked={on} onChange={(e) => setOn(e.currentTarget.checked)} /> {t('schedule.only')}</label>
        {on && <>
          <div class="field">
            <label for="schedule-zone">{t('schedule.zone')}</label>
            <input id="schedule-zone" value={zone} autoComplete="off" aria-describedby="schedule-hint" onInput={(e) => setZone(e.currentTarget.value)} />
          </div>
          {windows.map((w, i) => (
            <fieldset key={i} class="window">
              <legend>{t('schedule.window', { n: i + 1 })}</legend>
              <div class="days">
                {WEEK.map((d) => (
                  <label key={d}><input id={`schedule-${i}-${d}`} type="checkbox" checked={w.days.includes(d)} onChange={() => toggleDay(i, d)} /> {dayName(d)}</label>
                ))}
              </div>
              <label>{t('schedule.from')} <input id={`schedule-${i}-from`} type="time" value={w.from} required onInput={(e) => change(i, { from: e.currentTarget.value })} /></label>
              {' '}<label>{t('schedule.to')} <input id={`schedule-${i}-to`} type="time" value={w.to === '24:00' ? '00:00' : w.to} required onInput={(e) => change(i, { to: e.currentTarget.value })} /></label>
              {w.to <= w.from && <span class="hint"> {t('schedule.runsOver')}</span>}
              {windows.length > 1 && <>{' '}<button type="button" class="quiet" onClick={() => setWindows((ws) => ws.filter((_, j) => j !== i))}>{t('schedule.removeWindow', { n: i + 1 })}</button></>}
            </fieldset>
          ))}
          <button type="button" onClick={() => setWindows((ws) => [...ws, fresh()])}>{t('schedule.add')}</button>
        </>}
        {error && <p role="alert" class="field-error" id="schedule-error">{error}</p>}
        <div class="buttons"><button type="submit" class="primary" disabled={busy}>{t('schedule.save')}</button></div>
      </form>
    </section>
  );
}
