import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { api, onUnauthorized, storedSession, storeSession } from './api/client';
import type { Session } from './api/types';
import { navigate } from './router';

interface SessionState {
  session: Session | null;
  signIn(session: Session): void;
  signOut(): Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

/** The signed-in user: kept in localStorage so a reload stays signed in; a 401 signs out. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(storedSession);
  const signIn = (s: Session) => {
    storeSession(s);
    setSession(s);
  };
  // One function for the whole session, so the 401 listener is added once and never goes stale.
  const drop = useCallback(() => {
    storeSession(null);
    setSession(null);
    navigate('/signin');
  }, []);
  useEffect(() => onUnauthorized(drop), [drop]);
  const signOut = async () => {
    await api.logout().catch(() => undefined);
    drop();
  };
  return <SessionContext.Provider value={{ session, signIn, signOut }}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}
