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

/** The local midnight that starts a day as a date input gives it (`YYYY-MM-DD`), `later` days on; undefined when it is not a day. */
function localMidnight(day: string, later = 0): Date | undefined {
  const parts = /^(\d{4})-(\d\d)-(\d\d)$/.exec(day.trim());
  if (!parts) return undefined;
  const at = new Date(Number(parts[1]), Number(parts[2]) - 1, Number(parts[3]) + later);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/** The first moment of a day on this computer's clock, as the service reads a moment (ISO 8601, UTC). */
export function localDayStart(day: string): string | undefined {
  return localMidnight(day)?.toISOString();
}

/**
 * The last moment of a day on this computer's clock (the service takes it to
 * the second, included): the next day's first moment less a millisecond, so a
 * day whose clocks go back at midnight keeps its repeated hour.
 */
export function localDayEnd(day: string): string | undefined {
  const next = localMidnight(day, 1);
  return next && new Date(next.getTime() - 1).toISOString();
}
