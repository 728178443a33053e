// Times on the journalist's clock: a picked day's first and last moment, and
// service timestamps read as UTC.

import { describe, expect, it } from 'vitest';
import { localDayEnd, localDayStart, serviceMoment } from '../src/time';

describe('time', () => {
  it("asks for a picked day from its local midnight to its last millisecond", () => {
    const start = new Date(localDayStart('2026-11-27') ?? '');
    const end = new Date(localDayEnd('2026-11-27') ?? '');
    expect([start.getFullYear(), start.getMonth(), start.getDate(), start.getHours(), start.getMinutes()]).toEqual([2026, 10, 27, 0, 0]);
    expect([end.getDate(), end.getHours(), end.getMinutes(), end.getSeconds(), end.getMilliseconds()]).toEqual([27, 23, 59, 59, 999]);
    // What the service reads: ISO 8601 in UTC, one local day apart less a millisecond.
    expect(localDayStart('2026-11-27')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    expect(new Date(end.getTime() + 1).getDate()).toBe(28);
  });

  it('keeps the hour a day repeats when its clocks go back, and loses none when they skip', () => {
    // The tests run in America/Santiago (package.json), where 5 April 2026
    // starts with the clocks going back at midnight (a 25-hour day) and
    // 6 September 2026 with them skipping ahead (23 hours).
    const length = (day: string) => new Date(localDayEnd(day) ?? '').getTime() + 1 - new Date(localDayStart(day) ?? '').getTime();
    expect(Intl.DateTimeFormat().resolvedOptions().timeZone).toBe('America/Santiago');
    expect(length('2026-04-04')).toBe(25 * 3600e3);
    expect(length('2026-09-06')).toBe(23 * 3600e3);
    expect(length('2026-11-27')).toBe(24 * 3600e3);
    // Each day ends where the next begins.
    expect(new Date(localDayEnd('2026-04-04') ?? '').getTime() + 1).toBe(new Date(localDayStart('2026-04-05') ?? '').getTime());
  });

  it('asks for nothing when the field holds no day', () => {
    expect(localDayStart('')).toBeUndefined();
    expect(localDayEnd('27/11/2026')).toBeUndefined();
  });

  it("reads the service's timestamps as UTC", () => {
    expect(serviceMoment('2026-11-27 05:00:00')?.toISOString()).toBe('2026-11-27T05:00:00.000Z');
    expect(serviceMoment('2026-11-27T05:00:00+02:00')?.toISOString()).toBe('2026-11-27T03:00:00.000Z');
    expect(serviceMoment('not a time')).toBeUndefined();
  });
});
