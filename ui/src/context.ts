// What every screen needs: the API client and who is working.

import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Action, Api, Me } from './api';

export interface Desk {
  api: Api;
  me: Me;
  /** Whether the caller holds an access action (to hide what would be refused). */
  may: (action: Action) => boolean;
}

export const DeskContext = createContext<Desk | undefined>(undefined);

export function useDesk(): Desk {
  const desk = useContext(DeskContext);
  if (!desk) throw new Error('no desk: a screen outside the app');
  return desk;
}
