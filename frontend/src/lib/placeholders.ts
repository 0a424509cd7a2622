/**
 * The placeholders of character texts (spec section 3): `{{char}}`, `{{user}}` (any case,
 * inner spaces allowed), the single-brace forms and the legacy TavernAI forms `<BOT>`,
 * `<CHAR>`, `<USER>`. A card's introduction, description and greeting are written with
 * them (imported cards above all); wherever such a text is shown they are filled in, as the
 * server does for the stored greeting, so no one reads a raw `{{char}}`.
 */
const CHAR_FORMS = String.raw`\{\{\s*char\s*\}\}|\{char\}|<BOT>|<CHAR>`;
const USER_FORMS = String.raw`\{\{\s*user\s*\}\}|\{user\}|<USER>`;
const EITHER = new RegExp(`${CHAR_FORMS}|${USER_FORMS}`, 'gi');
const IS_CHAR = new RegExp(`^(?:${CHAR_FORMS})$`, 'i');

/** `text` with the character's and the user's names in place of the placeholders (one pass). */
export function fillPlaceholders(text: string, characterName: string, userName: string): string {
  // One pass, so a name that itself reads `{{user}}` is not expanded again.
  return text.replace(EITHER, (form) => (IS_CHAR.test(form) ? characterName : userName));
}
