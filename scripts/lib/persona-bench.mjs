// The persona bench's driver (scripts/bench-persona, BENCHMARKS.md "Persona that holds"):
// talks to a running Amora server over its public API only (the operator's createUser,
// the envelope's password sign-in, the WebSocket), so the same driver measures any build.
//
// Ten conversations with ten seeded characters on the embedded model: four in English,
// two each in German, French and Spanish. Every conversation asks the character's name;
// every reply is checked for a sentence end, and replies to German, French and Spanish
// messages for their language. Each conversation runs `ROUNDS` times (a new user each
// round), since replies are sampled.
//
// Usage: node --experimental-websocket persona-bench.mjs BASE_URL ADMIN_TOKEN OUT.json
import { readFileSync, writeFileSync } from 'node:fs';

import { amoraClient, endsAtSentence } from './amora-client.mjs';

const [baseUrl, adminToken, outFile] = process.argv.slice(2);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const REPLY_TIMEOUT_MS = Number(process.env.REPLY_TIMEOUT_MS ?? 600_000);

const SCRIPTS = {
  en: ['Hi! How is your day going?', 'What is your name?', 'What do you do for a living?', 'And who am I to you?'],
  de: ['Hallo! Wie geht es dir heute?', 'Wie heißt du?', 'Was machst du beruflich?', 'Und was bin ich für dich?'],
  fr: ["Salut ! Comment se passe ta journée ?", "Comment tu t'appelles ?", 'Que fais-tu dans la vie ?', 'Et moi, qui suis-je pour toi ?'],
  es: ['¡Hola! ¿Qué tal tu día?', '¿Cómo te llamas?', '¿A qué te dedicas?', '¿Y quién soy yo para ti?'],
};
const NAME_TURN = 1;
const PLAN = ['en', 'en', 'en', 'en', 'de', 'de', 'fr', 'fr', 'es', 'es'];

// The language of a reply by its most frequent function words: a small judge that tells
// English, German, French and Spanish apart, which is all the bench asks.
const STOPWORDS = {
  en: 'the and you your i to a of is it that in my me for with are be this what was have not so do',
  de: 'und ich du der die das ist nicht zu ein eine mit mich dich mir dir es auf für wie was ja bin hast sie wir',
  fr: 'et je tu le la les de des un une est pas que qui avec moi toi mon ma ton ta pour dans ce suis es vous nous',
  es: 'y yo tú tu el la los las de un una es no que con me te mi para en por qué soy eres estoy muy pero lo',
};
const WORDS = Object.fromEntries(Object.entries(STOPWORDS).map(([lng, list]) => [lng, new Set(list.split(' '))]));
function languageOf(text) {
  const words = text.toLowerCase().match(/[\p{L}']+/gu) ?? [];
  let best = null;
  let bestCount = 0;
  for (const [lng, set] of Object.entries(WORDS)) {
    const count = words.filter((w) => set.has(w)).length;
    if (count > bestCount) [best, bestCount] = [lng, count];
  }
  return best;
}

const { newUser, connect, reply: send, metrics } = amoraClient(baseUrl, adminToken);
const reply = (ws, characterId, content) => send(ws, characterId, content, REPLY_TIMEOUT_MS);

const seeds = JSON.parse(readFileSync(new URL('../../store/src/seed/characters.json', import.meta.url), 'utf8'));
const free = (prefix) => seeds.filter((c) => c.key.startsWith(prefix) && c.usedType === 0 && !c.restricted).slice(0, 5);
const characters = [...free('gf-'), ...free('bf-')];

const rows = [];
for (let round = 0; round < ROUNDS; round += 1) {
  const voucher = await newUser(round);
  const ws = connect(voucher);
  await ws.ready;
  for (const [i, lng] of PLAN.entries()) {
    const character = characters[(i + round * 3) % characters.length];
    for (const [turn, text] of SCRIPTS[lng].entries()) {
      const started = Date.now();
      const done = await reply(ws, character.key, text);
      const content = done.message?.content ?? '';
      const firstName = character.name.split(' ')[0].toLowerCase();
      rows.push({
        round,
        character: character.key,
        name: character.name,
        language: lng,
        turn,
        asked: text,
        reply: content,
        error: done.error ?? null,
        finishReason: done.finishReason ?? null,
        cut: done.cut ?? null,
        endsAtSentence: endsAtSentence(content),
        replyLanguage: languageOf(content),
        keptName: turn === NAME_TURN ? content.toLowerCase().includes(firstName) : null,
        ms: Date.now() - started,
      });
      const row = rows.at(-1);
      console.log(`${round} ${character.key} ${lng} #${turn} [${row.finishReason}${row.cut ? ', cut' : ''}] ${content.replace(/\s+/g, ' ').slice(0, 120)}`);
    }
  }
  ws.socket.close();
}

const share = (list) => (list.length ? list.filter(Boolean).length / list.length : 0);
const replies = rows.filter((r) => !r.error);
const nameRows = replies.filter((r) => r.turn === NAME_TURN);
const foreign = replies.filter((r) => r.language !== 'en');
const summary = {
  replies: replies.length,
  failed: rows.length - replies.length,
  keptName: { share: share(nameRows.map((r) => r.keptName)), of: nameRows.length },
  endsAtSentence: { share: share(replies.map((r) => r.endsAtSentence)), of: replies.length },
  hitLimit: { share: share(replies.map((r) => r.finishReason === 'length')), of: replies.length },
  markedCut: { share: share(replies.map((r) => r.cut === true)), of: replies.length },
  inUsersLanguage: Object.fromEntries(
    ['de', 'fr', 'es', 'all'].map((lng) => {
      const list = foreign.filter((r) => lng === 'all' || r.language === lng);
      return [lng, { share: share(list.map((r) => r.replyLanguage === r.language)), of: list.length }];
    }),
  ),
  englishAnsweredInEnglish: (() => {
    const list = replies.filter((r) => r.language === 'en');
    return { share: share(list.map((r) => r.replyLanguage === 'en')), of: list.length };
  })(),
  medianReplyMs: replies.map((r) => r.ms).sort((a, b) => a - b)[Math.floor(replies.length / 2)] ?? 0,
};
// The model's time to the first token over every reply, from the server's own histogram
// (`/metrics`): the prefix cache at work (a miss re-reads the whole prompt, ~5 ms a token).
const metricsText = await metrics();
const metric = (name) => Number(metricsText.match(new RegExp(`^${name}\\{phase="first_token"\\} ([\\d.e+-]+)$`, 'm'))?.[1] ?? NaN);
summary.meanFirstTokenMs = Math.round((metric('amora_chat_turn_phase_seconds_sum') / metric('amora_chat_turn_phase_seconds_count')) * 1000);
writeFileSync(outFile, JSON.stringify({ summary, rows }, null, 2));
console.log(JSON.stringify(summary, null, 2));
