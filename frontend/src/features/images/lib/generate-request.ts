import {
  PRESET_FIELD,
  PRESET_GROUPS,
  PROMPT_MAX_CHARS,
  type GenerateRequest,
  type PresetGroup,
} from '@/lib/images-api';

/** The preset chosen in each group, if any. */
export type Selection = Record<PresetGroup, string | null>;

/**
 * The `image/generate` payload the form describes, or null when it cannot be sent: it needs
 * a preset or a prompt (docs/api.md), and a prompt is at most 500 characters once trimmed.
 */
export function buildRequest(
  characterId: string | null,
  selection: Selection,
  prompt: string,
  count: number,
): GenerateRequest | null {
  const request: GenerateRequest = { count };
  if (characterId) request.characterId = characterId;
  for (const group of PRESET_GROUPS) {
    const key = selection[group];
    if (key) request[PRESET_FIELD[group]] = key;
  }
  const words = prompt.trim();
  if (words.length > PROMPT_MAX_CHARS) return null;
  if (words) request.prompt = words;
  const hasPreset = PRESET_GROUPS.some((group) => selection[group]);
  return hasPreset || words ? request : null;
}
