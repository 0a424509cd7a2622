import { afterEach, describe, expect, it, vi } from 'vitest';
import { notificationsAtom, showLoginTipAtom, store } from '@/app/store';
import {
  createCharacter,
  deleteCharacter,
  duplicateCharacter,
  exportCard,
  getAllMyCharacters,
  getCreateOptions,
  getMyCharacters,
  importCard,
  normalizeOptions,
  previewPortrait,
  setVisibility,
  updateCharacter,
} from '@/features/create/api/create-api';
import { completeDraft, myCharacter, optionsFor } from '@/features/create/lib/test-fixtures';
import { Gender } from '@/lib/api-types';
import { serveApi } from '@/test/fake-api';

afterEach(() => {
  vi.unstubAllGlobals();
  store.set(notificationsAtom, []);
  store.set(showLoginTipAtom, false);
});

describe('the character calls', () => {
  it('send the payloads of docs/api.md to their paths', async () => {
    const draft = completeDraft();
    const mine = myCharacter('c-1');
    const calls = serveApi({
      '/user/v1/character/getCreateOptions': { code: 200, data: optionsFor(Gender.guys) },
      '/user/v1/character/previewPortrait': {
        code: 200,
        data: { image: 'data:image/png;base64,AAAA', width: 320, height: 480 },
      },
      '/user/v1/character/create': { code: 200, data: mine },
      '/user/v1/character/update': { code: 200, data: mine },
      '/user/v1/character/duplicate': { code: 200, data: mine },
      '/user/v1/character/setVisibility': { code: 200, data: { ...mine, status: 'review' } },
      '/user/v1/character/getMyCharacters': { code: 200, data: [mine] },
      '/user/v1/character/importCard': { code: 200, data: mine },
      '/user/v1/character/exportCard': {
        code: 200,
        data: { fileName: 'Lena.png', mime: 'image/png', data: 'iVBORw0KGgo=' },
      },
    });
    expect((await getCreateOptions(Gender.guys)).data.voices).toHaveLength(3);
    expect((await previewPortrait(Gender.girls, 'anime', draft.looks)).data.width).toBe(320);
    expect((await createCharacter(draft)).data).toEqual(mine);
    await updateCharacter('c-1', draft);
    await deleteCharacter('c-1');
    await duplicateCharacter('c-1');
    expect((await setVisibility('c-1', 'public')).data.status).toBe('review');
    expect((await getMyCharacters()).data).toEqual([mine]);
    await importCard({ fileName: 'mia.png', data: 'AAAA', gender: Gender.girls, age: 21 });
    expect((await exportCard('c-1', 'png')).data.mime).toBe('image/png');
    expect(calls).toEqual([
      { path: '/user/v1/character/getCreateOptions', payload: { gender: 1 } },
      { path: '/user/v1/character/previewPortrait', payload: { gender: 0, style: 'anime', looks: draft.looks } },
      { path: '/user/v1/character/create', payload: { draft } },
      { path: '/user/v1/character/update', payload: { characterId: 'c-1', draft } },
      { path: '/user/v1/character/delete', payload: { characterId: 'c-1' } },
      { path: '/user/v1/character/duplicate', payload: { characterId: 'c-1' } },
      { path: '/user/v1/character/setVisibility', payload: { characterId: 'c-1', visibility: 'public' } },
      { path: '/user/v1/character/getMyCharacters', payload: { pageNo: 1, pageSize: 60 } },
      { path: '/user/v1/character/importCard', payload: { fileName: 'mia.png', data: 'AAAA', gender: 0, age: 21 } },
      { path: '/user/v1/character/exportCard', payload: { characterId: 'c-1', format: 'png' } },
    ]);
  });

  it('leave the refusals a form explains to the form, and a missing session to the login prompt', async () => {
    serveApi({
      '/user/v1/character/create': [
        { code: 10070, msg: 'greeting: This content is not allowed' },
        { code: 10001, msg: 'characterName: 1–40 characters' },
        { code: 10004, msg: 'sign in' },
      ],
    });
    expect((await createCharacter(completeDraft())).code).toBe(10070);
    expect((await createCharacter(completeDraft())).msg).toBe('characterName: 1–40 characters');
    expect(store.get(notificationsAtom)).toEqual([]);
    expect((await createCharacter(completeDraft())).code).toBe(10004);
    expect(store.get(showLoginTipAtom)).toBe(true);
  });

  it('read every page of the user’s characters until one is not full', async () => {
    const page = (from: number, n: number) => Array.from({ length: n }, (_, i) => myCharacter(`c-${from + i}`));
    const calls = serveApi({
      '/user/v1/character/getMyCharacters': [
        { code: 200, data: page(0, 60) },
        { code: 200, data: page(60, 25) },
      ],
    });
    const envelope = await getAllMyCharacters();
    expect(envelope.data.map((c) => c.character.characterId)).toEqual(page(0, 85).map((c) => c.character.characterId));
    expect(calls.map((c) => c.payload)).toEqual([
      { pageNo: 1, pageSize: 60 },
      { pageNo: 2, pageSize: 60 },
    ]);
  });

  it('read preset groups given as objects or as plain keys, and fill limits the answer leaves out', () => {
    const options = normalizeOptions(
      {
        styles: ['realistic', { key: 'anime' }, 3],
        eyes: [{ key: 'blue', nsfw: false }],
        limits: { nameMax: 30 },
      } as never,
      Gender.girls,
    );
    expect(options.styles).toEqual([{ key: 'realistic' }, { key: 'anime' }]);
    expect(options.eyes).toEqual([{ key: 'blue', nsfw: false }]);
    expect(options.bodies).toEqual([]);
    expect(options.voices).toEqual([]);
    expect(options.gender).toBe(0);
    expect(options.limits.nameMax).toBe(30);
    expect(options.limits.ageMin).toBe(18);
  });
});
