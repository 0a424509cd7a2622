import { useAtomValue } from 'jotai';
import { interestedGenderAtom } from '@/app/store';
import { getCatalogue, getChattedCharacters } from '@/features/groups/api/groups-api';
import { pickableCharacters, type Pickable } from '@/features/groups/lib/pickable';
import { useLoad } from '@/hooks/use-load';

/**
 * The characters a member may be picked from while `enabled` (a dialog open): the ones the
 * user chats with, then the catalogue of the gender they browse. The server checks each
 * pick again (10006 for one the user may not open).
 */
export function usePickableCharacters(enabled: boolean) {
  const gender = useAtomValue(interestedGenderAtom);
  const load = useLoad(
    async (): Promise<Pickable[]> => {
      const [chats, catalogue] = await Promise.all([getChattedCharacters(), getCatalogue(gender)]);
      if (!catalogue.success && !chats.success) throw new Error('no characters could be read');
      return pickableCharacters(
        chats.success && Array.isArray(chats.data) ? chats.data : [],
        catalogue.success && Array.isArray(catalogue.data) ? catalogue.data : [],
      );
    },
    [gender],
    { enabled },
  );
  return { characters: load.data ?? [], loading: load.loading, failed: load.error !== null, reload: load.reload };
}
