import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Me } from '../../shared/domain/identity.ts';
import { roleAllows, type Role } from '../../shared/domain/identity.ts';
import { api, ApiError } from './api.ts';

/** Who is signed in, and whether that session has since expired (the page stays; see App). */
export type SessionView = Me & { expired?: boolean };

/**
 * Who is signed in; null when the API answers 401 and nobody was. When someone was, a 401 keeps
 * who it was with `expired`: the page and whatever was typed into it stay, under a sign-in dialog
 * (an expired session must not throw away a half-filled form). Held back while a sign-in link is
 * exchanged.
 */
export function useMe(enabled = true) {
  const queryClient = useQueryClient();
  return useQuery({
    enabled,
    queryKey: ['me'],
    queryFn: async (): Promise<SessionView | null> => {
      try {
        return await api('/api/me', Me);
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) {
          const previous = queryClient.getQueryData<SessionView | null>(['me']);
          return previous ? { ...previous, expired: true } : null;
        }
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
