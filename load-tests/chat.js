// Chat: signed-in users talk with characters over the WebSocket (docs/api.md "WebSocket"):
// each VU sends a message, reads the streamed reply to `chatDone`, and goes again. The
// figures are the client's: time to the first `chatDelta`, and to `chatDone`.
//
//   scripts/load-test chat
//   k6 run -e BASE_URL=… -e ADMIN_TOKEN=… load-tests/chat.js
//
// VUS (4), TURNS per VU (3) tune it. On the embedded model every reply shares the CPU, so
// the figures say as much about the model as about the server; `amora_chat_turn_phase_seconds`
// on /metrics tells the two apart.

import { check, fail } from 'k6';
import { Counter, Trend } from 'k6/metrics';
import { WebSocket } from 'k6/websockets';
import { Client, WS_URL, createUsers, frame, makePaid } from './lib/amora.js';

const VUS = Number(__ENV.VUS || 4);
const TURNS = Number(__ENV.TURNS || 3);
const REPLY_TIMEOUT_MS = Number(__ENV.REPLY_TIMEOUT_MS || 120000);

const firstDelta = new Trend('chat_first_delta', true);
const turnTime = new Trend('chat_turn', true);
const chatErrors = new Counter('chat_errors');
const replies = new Counter('chat_replies');

export const options = {
  scenarios: {
    chat: { executor: 'per-vu-iterations', vus: VUS, iterations: 1, maxDuration: __ENV.MAX_DURATION || '10m' },
  },
  thresholds: {
    chat_errors: ['count==0'],
    chat_replies: [`count==${VUS * TURNS}`],
    checks: ['rate==1'],
  },
};

export function setup() {
  const users = createUsers(VUS, 'chat');
  for (const user of users) makePaid(user.userNo);
  return { users };
}

const LINES = [
  'Hi! I just got home from work. How was your day?',
  'Tell me one thing you like about rainy evenings.',
  'I am thinking of cooking pasta tonight. Any ideas?',
  'Do you like music? I play the guitar a little.',
];

export default async function (data) {
  const client = await Client.create();
  const user = data.users[__VU - 1];
  await client.signIn(user.userNo, user.password);
  const characterId = `gf-${String(((__VU - 1) % 60) + 1).padStart(3, '0')}`;

  const ws = new WebSocket(`${WS_URL}?voucher=${encodeURIComponent(client.voucher)}`);
  let turn = 0;
  let sentAt = 0;
  let gotDelta = false;
  let timer;

  const send = () => {
    turn += 1;
    gotDelta = false;
    sentAt = Date.now();
    ws.send(frame('chatSend', { characterId, content: LINES[(turn - 1) % LINES.length] }));
    timer = setTimeout(() => {
      chatErrors.add(1, { reason: 'timeout' });
      ws.close();
    }, REPLY_TIMEOUT_MS);
  };

  ws.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.event === 'hello') {
      check(event, { 'hello names the user': (e) => typeof e.data.userId === 'string' });
      send();
    } else if (event.event === 'chatDelta' && !gotDelta) {
      gotDelta = true;
      firstDelta.add(Date.now() - sentAt);
    } else if (event.event === 'chatDone') {
      clearTimeout(timer);
      turnTime.add(Date.now() - sentAt);
      const stored = check(event, { 'the reply is stored': (e) => e.data.message && e.data.message.content.length > 0 });
      if (stored) replies.add(1);
      if (turn < TURNS) send();
      else ws.close();
    } else if (event.event === 'chatError' || event.event === 'error') {
      clearTimeout(timer);
      chatErrors.add(1, { code: String(event.data.code) });
      console.error(`VU ${__VU}: ${message.data}`);
      ws.close();
    }
  };
  ws.onerror = (error) => {
    chatErrors.add(1, { reason: 'socket' });
    fail(`socket error: ${error.error}`);
  };
}
