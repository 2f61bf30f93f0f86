import { useQuery } from '@tanstack/react-query';
import { Me } from '../../shared/domain/identity.ts';
import { roleAllows, type Role } from '../../shared/domain/identity.ts';
import { api, ApiError } from './api.ts';

/** Who is signed in; null when the API answers 401. Held back while a sign-in link is exchanged. */
export function useMe(enabled = true) {
  return useQuery({
    enabled,
    queryKey: ['me'],
    queryFn: async () => {
      try {
        return await api('/api/me', Me);
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
}

/** Whether the signed-in role may do what `least` may (the API decides; this only shapes the UI). */
export function useCan(least: Role): boolean {
  const me = useMe().data;
  return me ? roleAllows(me.role, least) : false;
}

/** Exchange a token for the session cookie (POST /api/session). */
export async function signIn(token: string): Promise<void> {
  await api('/api/session', null, { method: 'POST', bearer: token.trim() });
}

/** Spends a sign-in link's one-time code for the session cookie. */
export async function signInWithCode(code: string): Promise<void> {
  await api('/api/session/code', null, { method: 'POST', body: { code } });
}

export async function signOut(): Promise<void> {
  await api('/api/session', null, { method: 'DELETE' });
}
