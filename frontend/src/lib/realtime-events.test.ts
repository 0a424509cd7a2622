// The client's event schema against the server: the events the Rust code builds
// (`Frame::new("name", json!({ "field": ... }))` in actors/ and server/) and the event table
// of docs/api.md. A renamed event, an added or dropped field, or a field that changed from
// number to string on either side fails here.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseServerEvent, SERVER_EVENT_SCHEMA, type ServerEvent } from '@/lib/realtime-events';

// Vitest runs from frontend/; the server's crates and docs are next to it.
const repoRoot = resolve(process.cwd(), '..') + '/';
const clientEvents = Object.keys(SERVER_EVENT_SCHEMA) as (keyof typeof SERVER_EVENT_SCHEMA)[];
const fieldsOf = (name: keyof typeof SERVER_EVENT_SCHEMA) => Object.keys(SERVER_EVENT_SCHEMA[name]).sort();

function rustFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return rustFiles(path);
    return name.endsWith('.rs') ? [path] : [];
  });
}

interface RustFrame {
  file: string;
  /** The field names of its `json!` literal; null when the data is built elsewhere. */
  fields: string[] | null;
}

/** Every `Frame::new("name", …)` of the server, by event name. */
function rustFrames(): Map<string, RustFrame[]> {
  const frames = new Map<string, RustFrame[]>();
  for (const file of ['actors/src', 'server/src'].flatMap((dir) => rustFiles(join(repoRoot, dir)))) {
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/Frame::new\(\s*"(\w+)",\s*((?:serde_json::)?json!\(\{[\s\S]*?\}\)\s*,?\s*\))?/g)) {
      const literal = match[2];
      const fields = literal ? [...literal.matchAll(/"(\w+)"\s*:/g)].map((m) => m[1]!).sort() : null;
      const name = match[1]!;
      frames.set(name, [...(frames.get(name) ?? []), { file: file.slice(repoRoot.length), fields }]);
    }
  }
  return frames;
}

/** The "Server → client" table of docs/api.md: event → field → 'string' | 'number' | other. */
function documentedEvents(): Map<string, Map<string, string>> {
  const doc = readFileSync(join(repoRoot, 'docs/api.md'), 'utf8');
  const section = doc.slice(doc.indexOf('Server → client'), doc.indexOf('Client → server'));
  const events = new Map<string, Map<string, string>>();
  for (const row of section.matchAll(/^\| `(\w+)` \| `(.*?)` \|/gm)) {
    const fields = new Map<string, string>();
    // A field starts the object or follows a comma; its example value says its type.
    for (const field of row[2]!.matchAll(/(?:^\{|,\s*)"(\w+)"(?:\s*:\s*(.))?/g)) {
      const first = field[2];
      fields.set(field[1]!, first === '"' ? 'string' : first !== undefined && /[-\d]/.test(first) ? 'number' : 'other');
    }
    events.set(row[1]!, fields);
  }
  return events;
}

describe('server events, as the Rust server builds them', () => {
  const frames = rustFrames();

  it.each(clientEvents)('%s is built by the server with exactly the client’s fields', (name) => {
    const built = frames.get(name) ?? [];
    expect(built, `no Frame::new("${name}", …) in actors/ or server/`).not.toEqual([]);
    for (const frame of built.filter((f) => f.fields !== null)) {
      expect(frame.fields, `fields of ${name} in ${frame.file}`).toEqual(fieldsOf(name));
    }
    expect(built.some((f) => f.fields !== null), `no json! literal shows the fields of ${name}`).toBe(true);
  });

  it('knows every event of the shared constructors in actors/src/events.rs', () => {
    const shared = [...frames.entries()].filter(([, list]) => list.some((f) => f.file.endsWith('events.rs'))).map(([name]) => name);
    expect(shared.length).toBeGreaterThan(0);
    for (const name of shared) expect(clientEvents).toContain(name);
  });
});

describe('server events, as docs/api.md documents them', () => {
  const documented = documentedEvents();

  it.each(clientEvents)('%s is documented with the same fields and types', (name) => {
    const fields = documented.get(name);
    expect(fields, `no row for ${name} in the docs/api.md event table`).toBeDefined();
    expect(Object.fromEntries(fields!)).toEqual(SERVER_EVENT_SCHEMA[name]);
  });
});

describe('parseServerEvent', () => {
  it('reads the documented examples', () => {
    const examples: [string, ServerEvent][] = [
      ['{"event":"hello","data":{"userId":"u1x9QeZ","coin":0}}', { event: 'hello', data: { userId: 'u1x9QeZ', coin: 0 } }],
      ['{"event":"tokenCount","data":{"coin":500}}', { event: 'tokenCount', data: { coin: 500 } }],
      ['{"event":"pong","data":{}}', { event: 'pong', data: {} }],
      ['{"event":"error","data":{"code":10006,"msg":"unknown action \\"fly\\""}}', { event: 'error', data: { code: 10006, msg: 'unknown action "fly"' } }],
    ];
    for (const [text, event] of examples) expect(parseServerEvent(text)).toEqual(event);
  });

  it('keeps only the known fields', () => {
    expect(parseServerEvent('{"event":"tokenCount","data":{"coin":5,"extra":true}}')).toEqual({ event: 'tokenCount', data: { coin: 5 } });
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
