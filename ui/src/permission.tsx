// What a person is told in place of a control their role may not use: the
// access action it takes, named as the service names it, in the same words
// on every screen, instead of a greyed-out or missing button they cannot
// explain to anyone. The service checks every request anyway; this only says
// ahead of time what it would refuse.

import type { Action } from './api';
import { useDesk } from './context';

/**
 * Says that `doing` (a phrase like “Publishing” or “Restoring a version”)
 * needs `action`; renders nothing when the person holds it. `id` lets a
 * control that stays on screen point at it with `aria-describedby`.
 */
export function MissingPermission({ action, doing, id, inline }: { action: Action; doing: string; id?: string; inline?: boolean }) {
  const { may } = useDesk();
  if (may(action)) return null;
  const words = `${doing} needs the permission “${action}”, which your role does not have. Ask an editor or an administrator.`;
  return inline ? (
    <span class="missing-permission" id={id}>
      {words}
    </span>
  ) : (
    <p class="missing-permission" id={id}>
      {words}
    </p>
  );
}
