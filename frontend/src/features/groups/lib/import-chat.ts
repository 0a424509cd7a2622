/**
 * Reading a SillyTavern group chat export (JSONL, one message object a line) before it is
 * sent to `group/importChat` (docs/api.md "Group chats"): who speaks in it, so that the
 * members can be picked by name, and what the server's refusals mean, in the user's words.
 * The server reads the file again and is the judge; this only helps the user choose.
 */
import { NAME_MAX_CHARS } from '@/features/groups/api/groups-api';
import type { Pickable } from '@/features/groups/lib/pickable';

export interface ExportOutline {
  /** The messages the server keeps: the user's and the characters', not system lines or empty texts. */
  messages: number;
  /** The characters' names, in the order they first speak (one per case-folded name). */
  speakers: string[];
  /** The first line that is not a JSON object (counting from 1), or null. */
  badLine: number | null;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What an export holds, read as the server reads it (metadata, system and empty lines passed over). */
export function outlineExport(text: string): ExportOutline {
  const speakers: string[] = [];
  const seen = new Set<string>();
  let messages = 0;
  let badLine: number | null = null;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (!line || badLine !== null) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      badLine = index + 1;
      return;
    }
    if (!isRecord(parsed)) {
      badLine = index + 1;
      return;
    }
    const { mes, name, is_user: isUser, is_system: isSystem } = parsed;
    // The metadata line has no text; system lines are SillyTavern's own.
    if (typeof mes !== 'string' || !mes.trim() || isSystem === true) return;
    messages += 1;
    if (isUser === true || typeof name !== 'string' || !name.trim()) return;
    const speaker = name.trim();
    const key = speaker.toLocaleLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    speakers.push(speaker);
  });
  return { messages, speakers, badLine };
}

const firstName = (name: string) => name.trim().split(/\s+/)[0] ?? '';

/**
 * The character a speaker's lines will be said by, among `characters`: the one of that name
 * (case-folded), else the only one whose first name it is ("Sofia" for "Sofia Marin"), as
 * the server matches a speaker to a member. Null when none or several could be meant.
 */
export function characterForSpeaker(speaker: string, characters: readonly Pickable[]): Pickable | null {
  const wanted = speaker.trim().toLocaleLowerCase();
  if (!wanted) return null;
  const exact = characters.find((c) => c.characterName.trim().toLocaleLowerCase() === wanted);
  if (exact) return exact;
  const byFirstName = characters.filter((c) => firstName(c.characterName).toLocaleLowerCase() === wanted);
  return byFirstName.length === 1 ? byFirstName[0]! : null;
}

/** The characters the speakers name, in the order they first speak, one each, at most `max`. */
export function membersForSpeakers(speakers: readonly string[], characters: readonly Pickable[], max: number) {
  const members: Pickable[] = [];
  for (const speaker of speakers) {
    const character = characterForSpeaker(speaker, characters);
    if (character && !members.some((m) => m.characterId === character.characterId)) members.push(character);
    if (members.length === max) break;
  }
  return members;
}

/** A group name from the export's file name: without its extension, at most the longest name allowed. */
export function nameFromFileName(fileName: string): string {
  const base = fileName.replace(/\.(jsonl|json|txt)$/i, '').replace(/[_\s]+/g, ' ');
  return Array.from(base.trim()).slice(0, NAME_MAX_CHARS).join('').trim();
}

/** A refusal of the export itself (`10001 chat: …`), as a translation key and its values. */
export interface ImportProblem {
  key:
    | 'groups.import.errors.speaker'
    | 'groups.import.errors.line'
    | 'groups.import.errors.tooLong'
    | 'groups.import.errors.noName'
    | 'groups.import.errors.tooMany'
    | 'groups.import.errors.empty'
    | 'groups.import.errors.tooLarge'
    | 'groups.import.errors.chat';
  values: Record<string, string | number>;
}

/**
 * What a `chat: …` message of `group/importChat` says (cards::chat_log and the group
 * importer word them): the speaker no member answers to, the line that cannot be read, or
 * a limit. Null for a message about another field.
 */
export function importProblem(msg: string): ImportProblem | null {
  const detail = /^\s*chat\s*:\s*(.*)$/s.exec(msg)?.[1];
  if (detail === undefined) return null;
  const speaker = /no member is "((?:[^"\\]|\\.)*)"/.exec(detail)?.[1];
  if (speaker !== undefined) return { key: 'groups.import.errors.speaker', values: { name: speaker } };
  const line = /line (\d+)/.exec(detail)?.[1];
  if (line !== undefined) {
    if (/without a name/.test(detail)) return { key: 'groups.import.errors.noName', values: { line } };
    if (/characters/.test(detail)) return { key: 'groups.import.errors.tooLong', values: { line } };
    return { key: 'groups.import.errors.line', values: { line } };
  }
  if (/more than \d+ messages/.test(detail)) return { key: 'groups.import.errors.tooMany', values: {} };
  if (/no message/.test(detail)) return { key: 'groups.import.errors.empty', values: {} };
  if (/bytes/.test(detail)) return { key: 'groups.import.errors.tooLarge', values: {} };
  return { key: 'groups.import.errors.chat', values: { detail } };
}
