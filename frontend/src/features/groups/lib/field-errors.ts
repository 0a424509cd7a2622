/**
 * Which field a refusal names. The group calls answer 10001 with `field: reason`
 * (docs/api.md "Group chats": "10001 names the field"), so a form can point at it.
 */
import { ApiCode } from '@/lib/api-types';

export type GroupField = 'name' | 'scenario' | 'talkCap' | 'members' | 'groups' | 'characterId' | 'other';

const FIELDS: readonly GroupField[] = ['name', 'scenario', 'talkCap', 'members', 'groups', 'characterId'];

export interface FieldError {
  field: GroupField;
  /** Translation key of what to tell the user. */
  key: 'chat.refused' | 'groups.errors.notAllowed' | 'groups.errors.tooMany' | `groups.errors.${GroupField}`;
}

/** The field and message of a refused group call; null for codes a form does not explain. */
export function groupFieldError(code: number, msg: string): FieldError | null {
  if (code === ApiCode.inputContentIllegal) return { field: 'other', key: 'chat.refused' };
  if (code === ApiCode.notFound) return { field: 'members', key: 'groups.errors.notAllowed' };
  if (code === ApiCode.rateLimited) return { field: 'other', key: 'groups.errors.tooMany' };
  if (code !== ApiCode.paramError) return null;
  const named = /^\s*([A-Za-z]+)\s*:/.exec(msg)?.[1] as GroupField | undefined;
  const field = named && FIELDS.includes(named) ? named : 'other';
  return { field, key: `groups.errors.${field}` };
}
