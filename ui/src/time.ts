// Times as the journalist's own clock shows them: the service stores and
// answers UTC (`YYYY-MM-DD HH:MM:SS`), and a day a journalist picks is a day
// on their clock, which the service is asked for as its first and last moment.

/** A service timestamp (`YYYY-MM-DD HH:MM:SS`, UTC, or ISO 8601) as a moment; undefined when it is not one. */
export function serviceMoment(stamp: string): Date | undefined {
  const at = new Date(`${stamp.replace(' ', 'T')}${/Z|[+-]\d\d:?\d\d$/.test(stamp) ? '' : 'Z'}`);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/** A service timestamp on this computer's clock: the time alone when it is today. */
export function serviceTime(stamp: string, withSeconds = false): string {
  const at = serviceMoment(stamp);
  if (!at) return stamp;
  const time = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', ...(withSeconds ? { second: '2-digit' } : {}) });
  return at.toDateString() === new Date().toDateString() ? time : `${at.toLocaleDateString()} ${time}`;
}

/** A day as a date input gives it (`YYYY-MM-DD`), at `hours:minutes:seconds.ms` on this computer's clock; undefined when it is not a day. */
function onLocalDay(day: string, hours: number, minutes: number, seconds: number, ms: number): string | undefined {
  const parts = /^(\d{4})-(\d\d)-(\d\d)$/.exec(day.trim());
  if (!parts) return undefined;
  const at = new Date(Number(parts[1]), Number(parts[2]) - 1, Number(parts[3]), hours, minutes, seconds, ms);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/** The first moment of a day on this computer's clock, as the service reads a moment (ISO 8601, UTC). */
export function localDayStart(day: string): string | undefined {
  return onLocalDay(day, 0, 0, 0, 0);
}

/** The last moment of a day on this computer's clock (the service takes it to the second, included). */
export function localDayEnd(day: string): string | undefined {
  return onLocalDay(day, 23, 59, 59, 999);
}
