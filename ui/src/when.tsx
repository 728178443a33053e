// A service timestamp shown on the journalist's clock, with the UTC time the
// service keeps in its tooltip and its machine-readable form.

import { serviceMoment, serviceTime } from './time';

/** `stamp` (the service's UTC timestamp) as this computer's clock shows it; the time alone when it is today. */
export function When({ stamp, withSeconds = false }: { stamp: string; withSeconds?: boolean }) {
  const at = serviceMoment(stamp);
  if (!at) return <>{stamp}</>;
  return (
    <time dateTime={at.toISOString()} title={`${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`}>
      {serviceTime(stamp, withSeconds)}
    </time>
  );
}
