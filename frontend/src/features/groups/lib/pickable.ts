/** The characters a user may put in a group: those they chat with first, then the catalogue's. */
import type { CharacterCard, ChatSummary } from '@/lib/api-types';

export interface Pickable {
  characterId: string;
  characterName: string;
  characterPhoto: string;
}

/** One entry per character: the user's chats first (most recent first), then the catalogue in its order. */
export function pickableCharacters(chats: readonly ChatSummary[], catalogue: readonly CharacterCard[]): Pickable[] {
  const seen = new Set<string>();
  const out: Pickable[] = [];
  for (const { characterId, characterName, characterPhoto } of [...chats, ...catalogue]) {
    if (seen.has(characterId)) continue;
    seen.add(characterId);
    out.push({ characterId, characterName, characterPhoto });
  }
  return out;
}

/** The entries whose name holds `query` (case-folded); all of them for an empty query. */
export function matching(list: readonly Pickable[], query: string): Pickable[] {
  const wanted = query.trim().toLocaleLowerCase();
  return wanted ? list.filter((c) => c.characterName.toLocaleLowerCase().includes(wanted)) : [...list];
}
