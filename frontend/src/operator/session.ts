/** The signed-in operator, shared by the console's pages. */
import { createContext, useContext } from 'react';
import type { Operator } from '@/operator/lib/types';

export interface Session {
  operator: Operator | null;
  setOperator: (operator: Operator | null) => void;
}

export const SessionContext = createContext<Session>({ operator: null, setOperator: () => undefined });

export function useSession(): Session {
  return useContext(SessionContext);
}

export function isAdmin(operator: Operator | null): boolean {
  return operator?.role === 'admin';
}
