/** Shapes of docs/api.md "Created characters" for the tests of this feature. */
import { DEFAULT_LIMITS, type CreateOptions, type Draft, type MyCharacter } from '@/features/create/api/create-api';
import { Gender, type GenderValue } from '@/lib/api-types';

const keys = (...list: string[]) => list.map((key) => ({ key }));

export function optionsFor(gender: GenderValue): CreateOptions {
  return {
    gender,
    styles: keys('realistic', 'anime'),
    ethnicities: keys('european', 'east-asian', 'latin'),
    eyes: keys('brown', 'green', 'blue'),
    hairColors: keys('black', 'auburn', 'platinum'),
    hairStyles: gender === Gender.guys ? keys('quiff', 'buzz') : keys('long-wavy', 'bob'),
    bodies: keys('slim', 'athletic', 'curvy'),
    outfits: keys('casual', 'evening-gown'),
    personalities: keys('playful', 'caring', 'shy'),
    relationships: keys('girlfriend', 'best-friend', 'stranger'),
    voices: [
      { voiceId: 'f1', gender: 0, label: 'Warm (female)' },
      { voiceId: 'f2', gender: 0, label: 'Bright (female)' },
      { voiceId: 'm1', gender: 1, label: 'Deep (male)' },
    ],
    limits: DEFAULT_LIMITS,
  };
}

export function completeDraft(gender: GenderValue = Gender.girls): Draft {
  return {
    gender,
    style: 'realistic',
    looks: {
      age: 24,
      ethnicity: 'european',
      eyes: 'green',
      hairColor: 'auburn',
      hairStyle: gender === Gender.guys ? 'quiff' : 'long-wavy',
      body: 'slim',
      outfit: 'casual',
    },
    personality: { preset: 'playful', text: 'Loves bad puns.' },
    relationship: { preset: 'girlfriend', text: '' },
    voiceId: gender === Gender.guys ? 'm1' : 'f1',
    characterName: 'Lena',
    introduction: 'A barista who paints at night.',
    greeting: 'Hi {{user}}! Coffee?',
    scenario: '',
    tags: ['Artistic'],
    nsfw: false,
    visibility: 'private',
  };
}

export function myCharacter(characterId: string, extra: Partial<MyCharacter> = {}): MyCharacter {
  const draft = completeDraft();
  return {
    character: {
      characterId,
      characterName: draft.characterName,
      characterAge: draft.looks.age,
      introduction: draft.introduction,
      characterPhoto: `/media/portrait-${characterId}`,
      characterImageList: [],
      usedType: 0,
      gender: 0,
      personality: '',
      scenario: '',
      greeting: draft.greeting,
      tags: draft.tags,
      alternateGreetings: [],
      systemPrompt: '',
      postHistoryInstructions: '',
      exampleDialogue: '',
      hasLorebook: false,
    },
    status: 'private',
    reviewReason: null,
    visibility: 'private',
    nsfw: false,
    draft,
    imported: false,
    createdAt: 1,
    updatedAt: 1,
    ...extra,
  };
}
