// The client's event schema against docs/api.md's event table (the generated wire types keep
// it in line with the Rust server at compile time: see SCHEMA_MATCHES_THE_SERVER). A renamed
// event, an added or dropped field, or a field that changed from number to string fails here.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CALL_EVENT_SCHEMA, parseServerEvent, SERVER_EVENT_SCHEMA, type ServerEvent } from '@/lib/realtime-events';

// Vitest runs from frontend/; the server's crates and docs are next to it.
const repoRoot = resolve(process.cwd(), '..') + '/';
const clientEvents = Object.keys(SERVER_EVENT_SCHEMA) as (keyof typeof SERVER_EVENT_SCHEMA)[];

/**
 * The kind of one documented value, in the schema's notation: `"gf-001"` is a string,
 * `40004` a number, `"stop" \| "length"` an enum, `ChatMessage \| null` a nullable shape,
 * `["…"]` a string array, `Memory[]` an array of a shape.
 */
function documentedKind(value: string): string {
  const alternatives = value.split(/\s*\\\|\s*/).map((part) => part.trim());
  const literals: string[] = [];
  const kinds: string[] = [];
  let nullable = false;
  for (const part of alternatives) {
    if (part === 'null') nullable = true;
    else if (part.startsWith('"')) literals.push(part.slice(1, -1));
    else if (/^[-\d]/.test(part)) kinds.push('number');
    else if (part === 'true' || part === 'false') kinds.push('boolean');
    else if (/^\[".*"\]$/.test(part)) kinds.push('string[]');
    else if (/^[A-Z]\w*(\[\])?$/.test(part)) kinds.push(part);
    else kinds.push(`other(${part})`);
  }
  if (literals.length === 1) kinds.unshift('string');
  if (literals.length > 1) kinds.unshift(`enum:${literals.join('|')}`);
  return [...kinds, ...(nullable ? ['null'] : [])].join('|');
}

/** The "Server → client" table of docs/api.md: event → field → kind (see documentedKind). */
function documentedEvents(): Map<string, Map<string, string>> {
  const doc = readFileSync(join(repoRoot, 'docs/api.md'), 'utf8');
  const section = doc.slice(doc.indexOf('Server → client'), doc.indexOf('Client → server'));
  const events = new Map<string, Map<string, string>>();
  for (const row of section.matchAll(/^\| `(\w+)` \| `(.*?)` \|/gm)) {
    const body = row[2]!.replace(/^\{/, '').replace(/\}$/, '');
    const fields = new Map<string, string>();
    // A field starts the object or follows a comma; its example value (up to the next
    // field) says its kind. A field without an example is documented as 'undocumented'.
    const starts = [...body.matchAll(/(?:^|,\s*)"(\w+)"(\s*:\s*)?/g)];
    starts.forEach((start, i) => {
      const from = start.index! + start[0].length;
      const to = i + 1 < starts.length ? starts[i + 1]!.index! : body.length;
      fields.set(start[1]!, start[2] ? documentedKind(body.slice(from, to)) : 'undocumented');
    });
    events.set(row[1]!, fields);
  }
  return events;
}

/**
 * The event tables of docs/api.md's "Images" and "Voice" sections, written in shorthand
 * (`{jobId, characterId \| null, image: GalleryImage}`): event → field → what the row says
 * of it ('' when only the name is given, `null` when nullable, else the shape's name).
 */
function documentedShorthandEvents(): Map<string, Map<string, string>> {
  const doc = readFileSync(join(repoRoot, 'docs/api.md'), 'utf8');
  const from = doc.indexOf('## Images');
  const section = doc.slice(from, doc.indexOf('## Blog', from));
  const events = new Map<string, Map<string, string>>();
  for (const row of section.matchAll(/^\| `(\w+)` \| `\{(.*?)\}`/gm)) {
    if (!/^(image|voice)[A-Z]/.test(row[1]!)) continue;
    const fields = new Map<string, string>();
    for (const part of row[2]!.split(',')) {
      const match = /^\s*(\w+)\s*(?::\s*(\w+))?\s*(\\\|\s*null)?\s*$/.exec(part);
      if (!match) throw new Error(`cannot read "${part}" of ${row[1]}`);
      fields.set(match[1]!, match[3] ? 'null' : (match[2] ?? ''));
    }
    events.set(row[1]!, fields);
  }
  return events;
}

const ISSUE_16_EVENTS = new Set([
  'imageQueued',
  'imageProgress',
  'imageDone',
  'imageFailed',
  'voicePart',
  'voiceFailed',
]);

describe('server events, as docs/api.md documents them', () => {
  const documented = documentedEvents();
  const shorthand = documentedShorthandEvents();

  it.each(clientEvents.filter((name) => ISSUE_16_EVENTS.has(name)))(
    '%s is documented in the Images or Voice table with the same fields',
    (name) => {
      const fields = shorthand.get(name);
      expect(fields, `no row for ${name} in the Images or Voice event tables`).toBeDefined();
      const schema: Record<string, string> = SERVER_EVENT_SCHEMA[name];
      expect([...fields!.keys()].sort()).toEqual(Object.keys(schema).sort());
      for (const [field, said] of fields!) {
        if (said === 'null') expect(schema[field], `${name}.${field}`).toMatch(/\|null$/);
        else if (said) expect(schema[field], `${name}.${field}`).toBe(said);
      }
    },
  );

  it('knows every event of the Images and Voice tables', () => {
    expect([...shorthand.keys()].sort()).toEqual([...ISSUE_16_EVENTS].sort());
  });

  it.each(clientEvents.filter((name) => !ISSUE_16_EVENTS.has(name)))(
    '%s is documented with the same fields and types',
    (name) => {
      const fields = documented.get(name);
      expect(fields, `no row for ${name} in the docs/api.md event table`).toBeDefined();
      expect(Object.fromEntries(fields!)).toEqual(SERVER_EVENT_SCHEMA[name]);
    },
  );
});

/**
 * The "Server → client" table of docs/api.md's "Voice calls" section, whose rows name a field
 * (`"callId"`), give it an example (`"sampleRate": 16000`) or say it may be null
 * (`"callId" \| null`): event → field → the kind of its example, `null`, or ''.
 */
function documentedCallEvents(): Map<string, Map<string, string>> {
  const doc = readFileSync(join(repoRoot, 'docs/api.md'), 'utf8');
  const from = doc.indexOf('## Voice calls');
  const section = doc.slice(from, doc.indexOf('\n## ', from + 1));
  // The events' table (the actions' comes first).
  const table = section.slice(section.indexOf('Server → client'));
  const events = new Map<string, Map<string, string>>();
  for (const row of table.matchAll(/^\| `(call\w+)` \| `\{(.*?)\}` \|/gm)) {
    const body = row[2]!;
    const fields = new Map<string, string>();
    const starts = [...body.matchAll(/(?:^|,\s*)"(\w+)"(\s*:\s*)?/g)];
    starts.forEach((start, i) => {
      const rest = body.slice(
        start.index! + start[0].length,
        i + 1 < starts.length ? starts[i + 1]!.index! : body.length,
      );
      fields.set(start[1]!, start[2] ? documentedKind(rest) : /\\\|\s*null/.test(rest) ? 'null' : '');
    });
    events.set(row[1]!, fields);
  }
  return events;
}

describe('call events, as docs/api.md "Voice calls" documents them', () => {
  const documented = documentedCallEvents();
  const callEvents = Object.keys(CALL_EVENT_SCHEMA) as (keyof typeof CALL_EVENT_SCHEMA)[];

  it('knows every event of the table, and the table every event it reads', () => {
    expect([...documented.keys()].sort()).toEqual([...callEvents].sort());
  });

  it.each(callEvents)('%s has the documented fields and kinds', (name) => {
    const fields = documented.get(name);
    expect(fields, `no row for ${name} in the Voice calls tables`).toBeDefined();
    const schema: Record<string, string> = CALL_EVENT_SCHEMA[name];
    expect([...fields!.keys()].sort()).toEqual(Object.keys(schema).sort());
    for (const [field, said] of fields!) {
      if (said === 'null') expect(schema[field], `${name}.${field}`).toMatch(/\|null$/);
      else if (said) expect(schema[field], `${name}.${field}`).toBe(said);
    }
  });

  it('parses a call as the server sends it', () => {
    expect(
      parseServerEvent(
        '{"event":"callSpeech","data":{"callId":"c1","replyId":"1763810000000101234","part":{"index":0,"url":"/media/voice-1.mp3","durationMs":900,"last":false}}}',
      ),
    ).toEqual({
      event: 'callSpeech',
      data: {
        callId: 'c1',
        replyId: '1763810000000101234',
        part: { index: 0, url: '/media/voice-1.mp3', durationMs: 900, last: false },
      },
    });
    expect(parseServerEvent('{"event":"callError","data":{"callId":null,"code":40004,"msg":"x"}}')).toEqual({
      event: 'callError',
      data: { callId: null, code: 40004, msg: 'x' },
    });
    expect(
      parseServerEvent('{"event":"callEnded","data":{"callId":"c1","reason":"hungup","answers":1,"coinSpent":2}}'),
    ).toBeNull();
  });
});

describe('parseServerEvent', () => {
  it('reads the documented examples', () => {
    const examples: [string, ServerEvent][] = [
      [
        '{"event":"hello","data":{"userId":"u1x9QeZ","coin":0}}',
        { event: 'hello', data: { userId: 'u1x9QeZ', coin: 0 } },
      ],
      ['{"event":"tokenCount","data":{"coin":500}}', { event: 'tokenCount', data: { coin: 500 } }],
      ['{"event":"pong","data":{}}', { event: 'pong', data: {} }],
      [
        '{"event":"error","data":{"code":10006,"msg":"unknown action \\"fly\\""}}',
        { event: 'error', data: { code: 10006, msg: 'unknown action "fly"' } },
      ],
    ];
    for (const [text, event] of examples) expect(parseServerEvent(text)).toEqual(event);
  });

  it('reads the chat events of the documented conversation', () => {
    const message = {
      messageId: '1763810000000101234',
      speaker: 'character',
      content: 'Hey there!',
      createdAt: 1763810000000,
    } as const;
    expect(
      parseServerEvent(
        '{"event":"chatDone","data":{"characterId":"gf-001","replyId":"1763810000000101234","finishReason":"stop","cut":false,"message":{"messageId":"1763810000000101234","speaker":"character","content":"Hey there!","createdAt":1763810000000},"recalled":null}}',
      ),
    ).toEqual({
      event: 'chatDone',
      data: {
        characterId: 'gf-001',
        replyId: '1763810000000101234',
        finishReason: 'stop',
        cut: false,
        message,
        recalled: null,
      },
    });
    expect(
      parseServerEvent(
        '{"event":"chatDone","data":{"characterId":"gf-001","replyId":"1","finishReason":"cancelled","cut":false,"message":null,"recalled":null}}',
      ),
    ).toEqual({
      event: 'chatDone',
      data: {
        characterId: 'gf-001',
        replyId: '1',
        finishReason: 'cancelled',
        cut: false,
        message: null,
        recalled: null,
      },
    });
    // A reply the token limit stopped mid-sentence says so (issue 18): the screen offers Continue.
    expect(
      parseServerEvent(
        '{"event":"chatDone","data":{"characterId":"gf-001","replyId":"2","finishReason":"length","cut":true,"message":null,"recalled":null}}',
      ),
    ).toEqual({
      event: 'chatDone',
      data: { characterId: 'gf-001', replyId: '2', finishReason: 'length', cut: true, message: null, recalled: null },
    });
    // What the reply recalled: memories and earlier messages, each an id and its text.
    const recalled = {
      memories: [{ id: '5', content: "Ann's dog is Biscuit", extra: 1 }],
      messages: [{ id: '3', content: 'My dog is called Biscuit' }],
    };
    expect(
      parseServerEvent(
        JSON.stringify({
          event: 'chatDone',
          data: { characterId: 'gf-001', replyId: '7', finishReason: 'stop', cut: false, message: null, recalled },
        }),
      ),
    ).toEqual({
      event: 'chatDone',
      data: {
        characterId: 'gf-001',
        replyId: '7',
        finishReason: 'stop',
        cut: false,
        message: null,
        recalled: {
          memories: [{ id: '5', content: "Ann's dog is Biscuit" }],
          messages: [{ id: '3', content: 'My dog is called Biscuit' }],
        },
      },
    });
    expect(
      parseServerEvent(
        '{"event":"chatError","data":{"characterId":"gf-001","replyId":null,"code":40004,"msg":"no free messages"}}',
      ),
    ).toEqual({
      event: 'chatError',
      data: { characterId: 'gf-001', replyId: null, code: 40004, msg: 'no free messages' },
    });
    expect(
      parseServerEvent('{"event":"chatMessageDeleted","data":{"characterId":"gf-001","messageIds":["7","8"]}}'),
    ).toEqual({
      event: 'chatMessageDeleted',
      data: { characterId: 'gf-001', messageIds: ['7', '8'] },
    });
    const memory = { memoryId: '9', content: 'Likes tea', origin: 'extracted', createdAt: 5, pinned: true, extra: 1 };
    expect(
      parseServerEvent(
        JSON.stringify({ event: 'memorySaved', data: { characterId: 'gf-001', added: 1, memories: [memory] } }),
      ),
    ).toEqual({
      event: 'memorySaved',
      data: {
        characterId: 'gf-001',
        added: 1,
        memories: [{ memoryId: '9', content: 'Likes tea', origin: 'extracted', createdAt: 5, pinned: true }],
      },
    });
  });

  it.each([
    [
      'a finish reason outside the documented set',
      '{"event":"chatDone","data":{"characterId":"a","replyId":"1","finishReason":"tired","cut":false,"message":null,"recalled":null}}',
    ],
    [
      'a missing nullable field',
      '{"event":"chatDone","data":{"characterId":"a","replyId":"1","finishReason":"stop","cut":false}}',
    ],
    [
      'a cut flag that is not true or false',
      '{"event":"chatDone","data":{"characterId":"a","replyId":"1","finishReason":"length","cut":"yes","message":null,"recalled":null}}',
    ],
    [
      'recalled items without ids',
      '{"event":"chatDone","data":{"characterId":"a","replyId":"1","finishReason":"stop","cut":false,"message":null,"recalled":{"memories":[{"content":"x"}],"messages":[]}}}',
    ],
    [
      'a message with an unknown speaker',
      '{"event":"chatMessage","data":{"characterId":"a","message":{"messageId":"1","speaker":"narrator","content":"x","createdAt":1}}}',
    ],
    [
      'a message id sent as a number',
      '{"event":"chatMessage","data":{"characterId":"a","message":{"messageId":1,"speaker":"user","content":"x","createdAt":1}}}',
    ],
    [
      'a reply id that is neither text nor null',
      '{"event":"chatError","data":{"characterId":"a","replyId":5,"code":1,"msg":""}}',
    ],
    [
      'deleted ids that are not all text',
      '{"event":"chatMessageDeleted","data":{"characterId":"a","messageIds":["1",2]}}',
    ],
    [
      'a memory of an unknown origin',
      '{"event":"memorySaved","data":{"characterId":"a","added":0,"memories":[{"memoryId":"1","content":"x","origin":"dream","createdAt":1}]}}',
    ],
  ])('drops a chat event with %s', (_what, frame) => {
    expect(parseServerEvent(frame)).toBeNull();
  });

  it('reads the image and voice events, and a picture in a chat message', () => {
    const image = {
      imageId: '17',
      jobId: '16',
      characterId: 'gf-001',
      characterName: 'Mia',
      prompt: 'beach',
      scene: 'beach',
      outfit: null,
      pose: null,
      style: 'anime',
      url: '/media/img-17',
      width: 768,
      height: 1024,
      nsfw: false,
      illustration: true,
      shared: false,
      createdAt: 5,
    };
    expect(
      parseServerEvent(
        JSON.stringify({ event: 'imageDone', data: { jobId: '16', imageId: '17', image: { ...image, owner: 'x' } } }),
      ),
    ).toEqual({
      event: 'imageDone',
      data: { jobId: '16', imageId: '17', image },
    });
    expect(
      parseServerEvent(
        '{"event":"imageFailed","data":{"jobId":"1","imageId":"2","reason":"cancelled","code":null,"msg":"","refunded":20}}',
      ),
    ).toEqual({
      event: 'imageFailed',
      data: { jobId: '1', imageId: '2', reason: 'cancelled', code: null, msg: '', refunded: 20 },
    });
    expect(
      parseServerEvent('{"event":"imageQueued","data":{"jobId":"1","imageId":"2","characterId":null,"position":0}}'),
    ).not.toBeNull();
    expect(
      parseServerEvent(
        '{"event":"voicePart","data":{"characterId":"a","messageId":"9","part":{"index":1,"url":"/media/voice-9-1","durationMs":900,"last":true}}}',
      ),
    ).toEqual({
      event: 'voicePart',
      data: {
        characterId: 'a',
        messageId: '9',
        part: { index: 1, url: '/media/voice-9-1', durationMs: 900, last: true },
      },
    });
    const picture = { imageId: '17', url: '/media/img-17', width: 768, height: 1024 };
    const withPicture = { messageId: '3', speaker: 'character', content: '', createdAt: 1, image: picture };
    expect(
      parseServerEvent(JSON.stringify({ event: 'chatMessage', data: { characterId: 'a', message: withPicture } })),
    ).toEqual({
      event: 'chatMessage',
      data: { characterId: 'a', message: withPicture },
    });
    const text = { messageId: '4', speaker: 'character', content: 'hi', createdAt: 1 };
    expect(
      parseServerEvent(
        JSON.stringify({ event: 'chatMessage', data: { characterId: 'a', message: { ...text, image: null } } }),
      ),
    ).toEqual({
      event: 'chatMessage',
      data: { characterId: 'a', message: text },
    });
  });

  it.each([
    [
      'an unknown failure reason',
      '{"event":"imageFailed","data":{"jobId":"1","imageId":"2","reason":"bored","code":null,"msg":"","refunded":0}}',
    ],
    [
      'a gallery image without its url',
      '{"event":"imageDone","data":{"jobId":"1","imageId":"2","image":{"imageId":"2"}}}',
    ],
    [
      'a voice part without its url',
      '{"event":"voicePart","data":{"characterId":"a","messageId":"9","part":{"index":1,"durationMs":900,"last":true}}}',
    ],
    [
      'a picture without its size',
      '{"event":"chatMessage","data":{"characterId":"a","message":{"messageId":"3","speaker":"character","content":"","createdAt":1,"image":{"imageId":"1","url":"/m"}}}}',
    ],
  ])('drops an image or voice event with %s', (_what, frame) => {
    expect(parseServerEvent(frame)).toBeNull();
  });

  it('keeps only the known fields', () => {
    expect(parseServerEvent('{"event":"tokenCount","data":{"coin":5,"extra":true}}')).toEqual({
      event: 'tokenCount',
      data: { coin: 5 },
    });
  });

  it.each([
    ['not JSON', 'tokenCount'],
    ['a binary frame', new ArrayBuffer(4)],
    ['JSON that is no object', '[1,2]'],
    ['no data', '{"event":"tokenCount"}'],
    ['data that is no object', '{"event":"tokenCount","data":[500]}'],
    ['an unknown event', '{"event":"fly","data":{}}'],
    ['an inherited name', '{"event":"toString","data":{}}'],
    ['a missing field', '{"event":"hello","data":{"coin":1}}'],
    ['a field of the wrong type', '{"event":"tokenCount","data":{"coin":"500"}}'],
    ['a number that is not finite', '{"event":"tokenCount","data":{"coin":1e999}}'],
  ])('drops %s', (_what, frame) => {
    expect(parseServerEvent(frame)).toBeNull();
  });
});
