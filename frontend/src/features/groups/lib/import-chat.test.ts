import { describe, expect, it } from 'vitest';
import {
  characterForSpeaker,
  importProblem,
  membersForSpeakers,
  nameFromFileName,
  outlineExport,
} from '@/features/groups/lib/import-chat';
import type { Pickable } from '@/features/groups/lib/pickable';

/** A group chat as SillyTavern saves it: metadata, greetings, the user, a system line, swipes, an empty text. */
const EXPORT = [
  '{"user_name":"Ann","character_name":"unused","create_date":"2024-09-28@01h02m03s","chat_metadata":{}}',
  '{"name":"Sofia","is_user":false,"is_system":false,"send_date":"September 28, 2024 1:02am","mes":"Oat flat white again?"}',
  '{"name":"Hana Mori","is_user":false,"mes":"Hi! I saved you a seat."}',
  '',
  '{"name":"Ann","is_user":true,"mes":"Hi both!"}',
  '{"name":"SillyTavern System","is_user":false,"is_system":true,"mes":"hidden"}',
  '{"name":"sofia","is_user":false,"mes":"Coming right up.","swipes":["Coming right up.","Sure!"],"swipe_id":0}',
  '{"name":"Leo","is_user":false,"mes":"   "}',
].join('\r\n');

const character = (characterId: string, characterName: string): Pickable => ({
  characterId,
  characterName,
  characterPhoto: '',
});
const SOFIA = character('gf-001', 'Sofia Marin');
const HANA = character('gf-002', 'Hana Mori');
const SOFIA_B = character('gf-050', 'Sofia Ortega');
const LEO = character('gm-001', 'Leo');

describe('outlineExport', () => {
  it('counts the kept messages and names the speakers in the order they first speak, once each', () => {
    expect(outlineExport(EXPORT)).toEqual({ messages: 4, speakers: ['Sofia', 'Hana Mori'], badLine: null });
  });

  it('names the first line that is not a JSON object', () => {
    expect(outlineExport(`${EXPORT}\nnot json\n[1]`).badLine).toBe(9);
    expect(outlineExport('[1, 2]').badLine).toBe(1);
    expect(outlineExport('').messages).toBe(0);
  });
});

describe('characterForSpeaker', () => {
  it('takes the character of that name, case-folded, else the only one of that first name', () => {
    expect(characterForSpeaker('hana mori', [SOFIA, HANA])).toBe(HANA);
    expect(characterForSpeaker('Sofia', [SOFIA, HANA])).toBe(SOFIA);
    expect(characterForSpeaker('Leo', [SOFIA, LEO])).toBe(LEO);
  });

  it('takes nobody when nobody or several could be meant', () => {
    expect(characterForSpeaker('Sofia', [SOFIA, SOFIA_B])).toBeNull();
    expect(characterForSpeaker('Sofia Ortega', [SOFIA, SOFIA_B])).toBe(SOFIA_B);
    expect(characterForSpeaker('Seraphina', [SOFIA, HANA])).toBeNull();
    expect(characterForSpeaker('  ', [SOFIA])).toBeNull();
  });
});

describe('membersForSpeakers', () => {
  it('picks the named characters in speaking order, each once, up to the most a group holds', () => {
    expect(membersForSpeakers(['Hana', 'Sofia', 'Hana Mori', 'Seraphina'], [SOFIA, HANA], 6)).toEqual([HANA, SOFIA]);
    expect(membersForSpeakers(['Hana', 'Sofia', 'Leo'], [SOFIA, HANA, LEO], 2)).toEqual([HANA, SOFIA]);
  });
});

describe('nameFromFileName', () => {
  it('drops the extension and keeps a name the server accepts', () => {
    expect(nameFromFileName('Cafe_night.jsonl')).toBe('Cafe night');
    expect(nameFromFileName('Group - 2024-09-28@01h02m03s.JSONL')).toBe('Group - 2024-09-28@01h02m03s');
    expect(Array.from(nameFromFileName(`${'ü'.repeat(80)}.jsonl`))).toHaveLength(60);
  });
});

describe('importProblem', () => {
  it('reads the speaker no member answers to, and the line that cannot be read', () => {
    expect(importProblem('chat: no member is "Seraphina" (name each speaker\'s character)')).toEqual({
      key: 'groups.import.errors.speaker',
      values: { name: 'Seraphina' },
    });
    expect(importProblem('chat: line 7 is not a JSON object: expected value at line 1 column 1')).toEqual({
      key: 'groups.import.errors.line',
      values: { line: '7' },
    });
    expect(importProblem("chat: line 3: a character's message without a name")?.key).toBe(
      'groups.import.errors.noName',
    );
    expect(importProblem('chat: line 4: a message over 20000 characters')?.key).toBe('groups.import.errors.tooLong');
  });

  it('reads the limits, keeps what it does not know, and leaves other fields to the form', () => {
    expect(importProblem('chat: the chat holds more than 2000 messages')?.key).toBe('groups.import.errors.tooMany');
    expect(importProblem('chat: the chat holds no message')?.key).toBe('groups.import.errors.empty');
    expect(importProblem('chat: the chat is 9000000 bytes, over the limit of 8388608')?.key).toBe(
      'groups.import.errors.tooLarge',
    );
    expect(importProblem('chat: something new')).toEqual({
      key: 'groups.import.errors.chat',
      values: { detail: 'something new' },
    });
    expect(importProblem('members: a group has 2 to 6 characters')).toBeNull();
  });
});
