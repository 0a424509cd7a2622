// The conversation-quality bench's driver (scripts/bench-conversation; BENCHMARKS.md
// "Conversation quality (issue 30)"). The same scripted conversations
// (scripts/lib/conversation-bench/{tuning,tuning-2,held-out,held-out-2,held-out-3,held-out-4,held-out-5}.json) are held twice:
//
// - amora: a running Amora server over its public API only (amora-client.mjs: the
//   operator's createUser, password sign-in, the WebSocket), a fresh account per
//   conversation whose interface language is English, memory extraction at its default;
// - peer: llama.cpp's llama-server on the same GGUF, prompted as SillyTavern's defaults do
//   (ChatML context and instruct presets, the "Neutral - Chat" system prompt, names
//   forced), with the card Amora serves for the same character, no memories, and Amora's
//   default sampling.
//
// Every reply is scored by the same code on both sides (see `score`) and written, with its
// text, to the output JSON so a person can read them.
//
// Usage: node --experimental-websocket conversation-bench.mjs --amora URL --token TOKEN
//          [--peer URL] [--side amora|peer|both] [--only tuning|tuning-2|held-out|held-out-2|held-out-3|held-out-4|held-out-5]
//          [--languages pl,de]
//          [--conversations N] [--concurrent] --out FILE.json
//        node conversation-bench.mjs --report FILE.json   (the table of an earlier run)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { amoraClient, endsAtSentence } from './amora-client.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
// franc lives with the frontend's packages (frontend/package.json's devDependencies).
const { franc } = await import(pathToFileURL(join(root, 'frontend', 'node_modules', 'franc', 'index.js')).href);

const options = { side: 'both', only: null, languages: null, conversations: null, concurrent: false, userName: 'Ann' };
for (let args = process.argv.slice(2); args.length; ) {
  const flag = args.shift();
  const value = () => args.shift();
  if (flag === '--amora') options.amora = value();
  else if (flag === '--token') options.token = value();
  else if (flag === '--peer') options.peer = value();
  else if (flag === '--side') options.side = value();
  else if (flag === '--only') options.only = value();
  else if (flag === '--languages') options.languages = value().split(',');
  else if (flag === '--conversations') options.conversations = Number(value());
  else if (flag === '--concurrent') options.concurrent = true;
  else if (flag === '--out') options.out = value();
  else if (flag === '--report') options.report = value();
  else throw new Error(`unknown argument ${flag}`);
}
if (!options.report && (!options.amora || !options.token || !options.out)) throw new Error('--amora, --token and --out are required');
if (!['amora', 'peer', 'both'].includes(options.side)) throw new Error('--side is amora, peer or both');
if (!options.report && options.side !== 'amora' && !options.peer) throw new Error('the peer side needs --peer');
// Held-out parts are scored apart: held-out (written with the tuning set, 8550d9d),
// held-out-2 (written later by someone who had not seen Amora's code, after held-out's
// replies had been read; its replies were read, and tuned against, from 2026-11-29 on) and
// held-out-3 (1691054, written blind on 2026-11-29, never tuned on). tuning-2 and
// held-out-4 were written together, blind, by someone who had seen neither the chat code
// nor the other parts: tuning-2 to tune the answer openings on (its recalls are scored by
// actors/src/chat/answer.rs `openings_answer_the_tuning_corpora`), held-out-4 never read.
// held-out-3's wrong-language replies were read on 2026-11-30 (run 14) and tuned against,
// so held-out-5 was written then, blind (by someone who had seen neither the chat code nor
// the other parts), before that tuning, and never read.
const PARTS = ['tuning', 'tuning-2', 'held-out', 'held-out-2', 'held-out-3', 'held-out-4', 'held-out-5'];
if (options.only && !PARTS.includes(options.only)) throw new Error(`--only is one of ${PARTS.join(', ')}`);

const REPLY_TIMEOUT_MS = Number(process.env.REPLY_TIMEOUT_MS ?? 600_000);

// Amora's defaults (ai/src/chat/embedded/mod.rs DEFAULT_TEMPERATURE, DEFAULT_TOP_P, TOP_K;
// ai/src/chat/settings.rs EmbeddedSettings repeat_penalty/repeat_last_n; actors/src/chat
// ChatSettings max_reply_tokens), given to the peer so both sample alike.
const SAMPLING = { temperature: 0.7, top_p: 0.9, top_k: 40, repeat_penalty: 1.1, repeat_last_n: 64, n_predict: 160 };

// ---------------------------------------------------------------------------------------
// The corpus.
const parts = PARTS.filter((part) => !options.only || options.only === part);
const corpus = parts.flatMap((part) => {
  const file = JSON.parse(readFileSync(join(here, 'conversation-bench', `${part}.json`), 'utf8'));
  return file.conversations
    .filter((conversation) => !options.languages || options.languages.includes(conversation.language))
    .map((conversation) => ({ ...conversation, part }));
});
// The parts taken in turn (a run cut short has measured each); --conversations N: a quick
// subset, spread over the parts and the languages.
const plan = spread(corpus, options.conversations ?? corpus.length);
function spread(list, n) {
  // Within a part, every language's first conversation before any second one.
  const byPart = parts.map((part) => {
    const seen = {};
    return list
      .filter((c) => c.part === part)
      .map((c, i) => ({ c, rank: (seen[c.language] = (seen[c.language] ?? -1) + 1), i }))
      .sort((x, y) => x.rank - y.rank || x.i - y.i)
      .map(({ c }) => c);
  });
  const picked = [];
  for (let i = 0; picked.length < Math.min(n, list.length); i += 1) {
    const item = byPart[i % byPart.length][Math.floor(i / byPart.length)];
    if (item) picked.push(item);
  }
  return picked;
}

// ---------------------------------------------------------------------------------------
// Scoring: the same for both sides, one reply at a time.
const ISO3 = { en: 'eng', de: 'deu', es: 'spa', fr: 'fra', id: 'ind', it: 'ita', ja: 'jpn', ko: 'kor', pl: 'pol', pt: 'por' };
const ONLY = Object.values(ISO3);
const FROM_ISO3 = Object.fromEntries(Object.entries(ISO3).map(([two, three]) => [three, two]));

// franc restricted to the ten interface languages; `und` (too short or unclear) is null,
// which never matches.
function detectLanguage(text) {
  const code = franc(text, { only: ONLY });
  return FROM_ISO3[code] ?? null;
}

// Case- and accent-insensitive: NFD without combining marks, lower case.
const fold = (text) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

// The reply holds one of the expected words; a Latin-script word must start a word there
// ("Gdańsk" is found in "w Gdańsku", not "Leeds" inside "needs"), CJK anywhere.
function holdsFact(reply, expect) {
  const text = fold(reply);
  return expect.some((word) => {
    const folded = fold(word);
    if (!/^[a-z]/.test(folded)) return text.includes(folded);
    const escaped = folded.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}`, 'u').test(text);
  });
}

// A speaker label: a line (the first or any later one) opening, after markup, with a name
// and a colon: the character's name or first name, the user's display name, "User",
// "{{user}}" and the like, or any one or two capitalised words (a name-like label).
function labelLeaks(reply, characterName, userName) {
  const known = [characterName, characterName.split(' ')[0], userName, 'user', 'assistant', 'you', '{{user}}', '{{char}}', 'char']
    .map((name) => fold(name));
  const found = [];
  for (const raw of reply.split('\n')) {
    const line = raw.replace(/^[\s*_"'“«>-]+/u, '');
    const label = line.match(/^([^:：\n]{1,40}?)\s*[:：]/u)?.[1];
    if (!label) continue;
    const folded = fold(label.trim());
    if (known.includes(folded) || /^\p{Lu}[\p{Ll}'’]+(?: \p{Lu}[\p{Ll}'’]+)?$/u.test(label.trim())) found.push(label.trim());
  }
  return found;
}

// A line written as the user: one opening with the user's label (above), or a line that is
// one of the user's own messages of this conversation again (quoting inside a sentence is not).
function userLines(reply, userName, userMessages) {
  const lines = [];
  for (const raw of reply.split('\n')) {
    const line = raw.replace(/^[\s*_"'“«>-]+/u, '');
    const label = line.match(/^([^:：\n]{1,40}?)\s*[:：]/u)?.[1];
    if (label && ['user', '{{user}}', 'you', fold(userName)].includes(fold(label.trim()))) {
      lines.push(raw.trim());
      continue;
    }
    const bare = (text) => fold(text).replace(/[\p{P}\p{S}\s]+/gu, ' ').trim();
    if (bare(line).length >= 8 && userMessages.some((m) => bare(m) === bare(line))) lines.push(raw.trim());
  }
  return lines;
}

// A tail: the reply ends with a hashtag, or with a run of two or more emoji.
const EMOJI = /\p{Extended_Pictographic}/u;
function tailOf(reply) {
  const text = reply.trimEnd();
  const hashtag = text.match(/#[\p{L}\p{N}_]+[\s\p{P}\p{Extended_Pictographic}\u200d\ufe0f]*$/u);
  if (hashtag) return 'hashtag';
  // The trailing run of emoji (with joiners, variation selectors, skin tones and spaces).
  const run = text.match(/[\p{Extended_Pictographic}\u200d\ufe0f\u{1f3fb}-\u{1f3ff}\s]+$/u)?.[0] ?? '';
  const count = [...run].filter((ch) => EMOJI.test(ch)).length;
  return count >= 2 ? 'emoji' : null;
}

// Word trigrams (words by the locale's segmenter, so Japanese has words too).
function trigrams(text, language) {
  const segmenter = new Intl.Segmenter(language, { granularity: 'word' });
  const words = [...segmenter.segment(fold(text))].filter((s) => s.isWordLike).map((s) => s.segment);
  const grams = new Set();
  for (let i = 0; i + 2 < words.length; i += 1) grams.add(`${words[i]} ${words[i + 1]} ${words[i + 2]}`);
  return grams;
}
function jaccard(a, b) {
  if (!a.size || !b.size) return 0;
  let shared = 0;
  for (const gram of a) if (b.has(gram)) shared += 1;
  return shared / (a.size + b.size - shared);
}

function score(reply, { turn, language, characterName, userName, userMessages, previous }) {
  const expected = turn.replyLanguage ?? language;
  const detected = reply ? detectLanguage(reply) : null;
  const labels = labelLeaks(reply, characterName, userName);
  const asUser = userLines(reply, userName, userMessages);
  const similarity = previous ? jaccard(trigrams(reply, language), trigrams(previous, language)) : 0;
  return {
    expectedLanguage: expected,
    detectedLanguage: detected,
    languageMatch: detected === expected,
    factRecalled: turn.kind === 'recall' ? holdsFact(reply, turn.expect) : null,
    labels,
    userLines: asUser,
    leak: labels.length > 0 || asUser.length > 0,
    tail: tailOf(reply),
    similarityToPrevious: Math.round(similarity * 1000) / 1000,
    nearDuplicate: similarity >= 0.5,
    endsAtSentence: endsAtSentence(reply),
  };
}

// ---------------------------------------------------------------------------------------
// The two sides.
const amora = amoraClient(options.amora, options.token);
const log = (side, conversation, index, text) => console.log(`${side} ${conversation.id} #${index} ${text.replace(/\s+/g, ' ').slice(0, 140)}`);

// The card as Amora serves it (the English interface), for the peer's prompt.
const cards = new Map();
let cardVoucher = null;
async function card(characterId) {
  if (!cards.has(characterId)) {
    cardVoucher ??= await amora.newUser('cards', options.userName);
    const info = await amora.api('/user/v1/character/getCharacterInfo', { characterId }, cardVoucher);
    cards.set(characterId, {
      name: info.characterName,
      description: info.introduction ?? '',
      personality: info.personality ?? '',
      scenario: info.scenario ?? '',
      greeting: info.greeting ?? '',
    });
  }
  return cards.get(characterId);
}

async function amoraConversation(conversation) {
  const voucher = await amora.newUser(conversation.id, options.userName);
  await amora.api('/user/v1/updateWebData', { language: 'en' }, voucher);
  const { name } = await card(conversation.character);
  const ws = amora.connect(voucher);
  await ws.ready;
  const replies = [];
  const userMessages = [];
  let previous = null;
  try {
    for (const [index, turn] of conversation.turns.entries()) {
      const started = Date.now();
      // A reply that never comes is scored as a failed one and ends its conversation (a
      // late `chatDone` would be taken for the next turn's); the run goes on with the next.
      let done;
      let timedOut = false;
      try {
        done = await amora.reply(ws, conversation.character, turn.text, REPLY_TIMEOUT_MS);
      } catch (error) {
        done = { error: { code: 'timeout', msg: String(error?.message ?? error) } };
        timedOut = true;
      }
      userMessages.push(turn.text);
      const text = done.message?.content ?? '';
      if (index === 0) previous = (await greetingOf(voucher, conversation.character)) ?? previous;
      replies.push({
        turn: index,
        kind: turn.kind,
        said: turn.text,
        reply: text,
        error: done.error ?? null,
        finishReason: done.finishReason ?? null,
        cut: done.cut ?? null,
        recalled: done.recalled ?? null,
        firstTokenMs: done.firstDeltaMs,
        ms: Date.now() - started,
        ...score(text, { turn, language: conversation.language, characterName: name, userName: options.userName, userMessages, previous }),
      });
      log('amora', conversation, index, `[${done.finishReason ?? 'error'}] ${text || JSON.stringify(done.error)}`);
      previous = text;
      if (timedOut) break;
    }
  } finally {
    ws.socket.close();
  }
  const memories = await amora.api('/user/v1/memory/getMemoryList', { characterId: conversation.character }, voucher).catch((e) => ({ error: String(e) }));
  return { replies, memories: Array.isArray(memories) ? memories.map((m) => m.content) : memories };
}

// The greeting Amora stored when the conversation opened (the oldest message).
async function greetingOf(voucher, characterId) {
  const page = await amora.api('/user/v1/chat/getMessageList', { characterId, pageSize: 100 }, voucher);
  const oldest = page.messages.at(-1);
  return oldest?.speaker === 'character' ? oldest.content : null;
}

// SillyTavern's defaults with a ChatML model (default/content/presets: context/ChatML.json's
// story string, instruct/ChatML.json with names_behavior "force" and always_force_name2,
// sysprompt/"Neutral - Chat"): the system block is the system prompt, the description,
// "{{char}}'s personality: …" and "Scenario: …"; each message is prefixed with its
// speaker's name; the prompt ends with "<|im_start|>assistant\n{{char}}:".
function peerPrompt(character, userName, history) {
  const fill = (text) => text.replace(/\{\{char\}\}/gi, character.name).replace(/\{\{user\}\}/gi, userName);
  const system = [
    `Write ${character.name}'s next reply in a fictional chat between ${character.name} and ${userName}.`,
    character.description && fill(character.description),
    character.personality && `${character.name}'s personality: ${fill(character.personality)}`,
    character.scenario && `Scenario: ${fill(character.scenario)}`,
  ].filter(Boolean).join('\n');
  let prompt = `<|im_start|>system\n${system}<|im_end|>\n`;
  for (const message of history) {
    const speaker = message.role === 'user' ? userName : character.name;
    prompt += `<|im_start|>${message.role}\n${speaker}: ${message.content}<|im_end|>\n`;
  }
  return `${prompt}<|im_start|>assistant\n${character.name}:`;
}

async function peerConversation(conversation) {
  const character = await card(conversation.character);
  const fill = (text) => text.replace(/\{\{char\}\}/gi, character.name).replace(/\{\{user\}\}/gi, options.userName);
  const history = character.greeting ? [{ role: 'assistant', content: fill(character.greeting) }] : [];
  const replies = [];
  const userMessages = [];
  let previous = history[0]?.content ?? null;
  for (const [index, turn] of conversation.turns.entries()) {
    history.push({ role: 'user', content: turn.text });
    userMessages.push(turn.text);
    const started = Date.now();
    let text = '';
    let error = null;
    let timings = null;
    let stop = null;
    try {
      const response = await fetch(`${options.peer}/completion`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          prompt: peerPrompt(character, options.userName, history),
          ...SAMPLING,
          min_p: 0,
          // SillyTavern's stop strings: the instruct preset's sequences and "\n{{user}}:".
          stop: ['<|im_end|>', '<|im_start|>', `\n${options.userName}:`],
          cache_prompt: true,
        }),
      });
      if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
      const body = await response.json();
      // SillyTavern's cleanup: the text trimmed, a leading "{{char}}:" removed.
      text = body.content.trim();
      if (text.startsWith(`${character.name}:`)) text = text.slice(character.name.length + 1).trim();
      timings = body.timings ?? null;
      stop = body.stop_type ?? (body.stopped_limit ? 'limit' : 'stop');
    } catch (e) {
      error = String(e);
    }
    history.push({ role: 'assistant', content: text });
    replies.push({
      turn: index,
      kind: turn.kind,
      said: turn.text,
      reply: text,
      error,
      finishReason: stop,
      firstTokenMs: timings ? Math.round(timings.prompt_ms + timings.predicted_per_token_ms) : null,
      ms: Date.now() - started,
      ...score(text, { turn, language: conversation.language, characterName: character.name, userName: options.userName, userMessages, previous }),
    });
    log('peer', conversation, index, `[${stop ?? 'error'}] ${text || error}`);
    previous = text;
  }
  return { replies, memories: null };
}

// Each side writes the output again after every conversation, so a run cut short still
// leaves what it measured.
async function runSide(side) {
  for (const conversation of plan) {
    const { replies, memories } = side === 'amora' ? await amoraConversation(conversation) : await peerConversation(conversation);
    results[side].push({ id: conversation.id, part: conversation.part, language: conversation.language, character: conversation.character, memories, replies });
    writeOut(false);
  }
}

// ---------------------------------------------------------------------------------------
// Summaries.
const percent = (n, of) => (of ? Math.round((1000 * n) / of) / 10 : null);
function summarize(conversations) {
  const replies = conversations.flatMap((c) => c.replies);
  const recall = replies.filter((r) => r.kind === 'recall');
  const count = (predicate) => replies.filter(predicate).length;
  const sorted = (key) => replies.map((r) => r[key]).filter((v) => typeof v === 'number').sort((a, b) => a - b);
  const median = (list) => (list.length ? list[Math.floor(list.length / 2)] : null);
  return {
    conversations: conversations.length,
    replies: replies.length,
    failed: count((r) => r.error),
    languageMatch: { percent: percent(count((r) => r.languageMatch), replies.length), n: count((r) => r.languageMatch), of: replies.length },
    undetermined: count((r) => r.detectedLanguage === null),
    factsRecalled: { percent: percent(recall.filter((r) => r.factRecalled).length, recall.length), n: recall.filter((r) => r.factRecalled).length, of: recall.length },
    leaks: count((r) => r.leak),
    labelLeaks: count((r) => r.labels.length > 0),
    userLines: count((r) => r.userLines.length > 0),
    tails: count((r) => r.tail),
    nearDuplicates: count((r) => r.nearDuplicate),
    completeSentences: { percent: percent(count((r) => r.endsAtSentence), replies.length), n: count((r) => r.endsAtSentence), of: replies.length },
    medianFirstTokenMs: median(sorted('firstTokenMs')),
    medianReplyMs: median(sorted('ms')),
  };
}

const sides = options.side === 'both' ? ['amora', 'peer'] : [options.side];
const started = Date.now();
const results = Object.fromEntries(sides.map((side) => [side, []]));
function summaries() {
  const summary = {};
  for (const side of sides) {
    summary[side] = {};
    for (const part of parts) summary[side][part] = summarize(results[side].filter((c) => c.part === part));
    summary[side].all = summarize(results[side]);
  }
  return summary;
}
function writeOut(complete) {
  const document = {
    about: 'scripts/bench-conversation: every reply with its scores; see BENCHMARKS.md "Conversation quality (issue 30)"',
    complete,
    startedAt: new Date(started).toISOString(),
    seconds: Math.round((Date.now() - started) / 1000),
    options,
    sampling: SAMPLING,
    summary: summaries(),
    conversations: results,
  };
  writeFileSync(options.out, JSON.stringify(document, null, 2));
}
if (options.report) {
  // --report FILE.json: the table of an earlier (or interrupted) run, summarized anew.
  const earlier = JSON.parse(readFileSync(options.report, 'utf8'));
  sides.length = 0;
  for (const [side, list] of Object.entries(earlier.conversations)) {
    sides.push(side);
    results[side] = list;
  }
  options.out = options.report;
} else {
  if (options.concurrent) await Promise.all(sides.map((side) => runSide(side)));
  else for (const side of sides) await runSide(side);
  writeOut(true);
}
const summary = summaries();

const cell = (s) => `${s.percent ?? '–'}% (${s.n}/${s.of})`;
console.log('\n| side | part | conversations | replies | language match | facts recalled | leaks | tails | near-duplicates | complete sentences | median first token | median reply |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const side of sides) {
  for (const part of [...parts, 'all']) {
    const s = summary[side][part];
    const ms = (v) => (v === null ? '–' : `${(v / 1000).toFixed(2)} s`);
    console.log(
      `| ${side === 'amora' ? 'Amora' : 'peer (llama-server, SillyTavern prompt)'} | ${part} | ${s.conversations} | ${s.replies}${s.failed ? ` (${s.failed} failed)` : ''} | ${cell(s.languageMatch)} | ${cell(s.factsRecalled)} | ${s.leaks} | ${s.tails} | ${s.nearDuplicates} | ${cell(s.completeSentences)} | ${ms(s.medianFirstTokenMs)} | ${ms(s.medianReplyMs)} |`,
    );
  }
}
console.log(`\nevery reply in ${options.out}`);
