// Connection scale: many signed-in users keep a socket open and idle, as browser tabs do;
// each says `ping` now and then and must hear `pong`, and the server's own protocol pings
// must keep the sockets alive. The figures: time to `hello`, `ping` → `pong` round trips,
// and sockets dropped.
//
//   scripts/load-test sockets
//   k6 run -e BASE_URL=… -e ADMIN_TOKEN=… load-tests/sockets.js
//
// SOCKETS (200), HOLD_SECONDS (30) and PING_SECONDS (5) tune it. Users are few (USERS, 50:
// a user may hold `realtime.max_sockets_per_user` sockets per node) and sign in once each.

import { check } from 'k6';
import { Counter, Trend } from 'k6/metrics';
import { WebSocket } from 'k6/websockets';
import { Client, WS_URL, createUsers, frame } from './lib/amora.js';

const SOCKETS = Number(__ENV.SOCKETS || 200);
const USERS = Math.min(Number(__ENV.USERS || 50), SOCKETS);
const HOLD_MS = Number(__ENV.HOLD_SECONDS || 30) * 1000;
const PING_MS = Number(__ENV.PING_SECONDS || 5) * 1000;

const toHello = new Trend('socket_time_to_hello', true);
const pingPong = new Trend('socket_ping_pong', true);
const dropped = new Counter('sockets_dropped');
const held = new Counter('sockets_held');

export const options = {
  scenarios: {
    sockets: {
      executor: 'per-vu-iterations',
      vus: SOCKETS,
      iterations: 1,
      maxDuration: `${Math.ceil(HOLD_MS / 1000) + 120}s`,
    },
  },
  thresholds: Object.assign(
    { sockets_dropped: ['count==0'], sockets_held: [`count==${SOCKETS}`], checks: ['rate==1'] },
    // A smoke run (SMOKE=1, in the test command) checks behaviour only.
    __ENV.SMOKE ? {} : { socket_ping_pong: ['p(95)<100'] },
  ),
};

// Signs every user in once; the VUs share their vouchers.
export async function setup() {
  const vouchers = [];
  for (const user of createUsers(USERS, 'sockets')) {
    const client = await Client.create();
    await client.signIn(user.userNo, user.password);
    vouchers.push(client.voucher);
  }
  return { vouchers };
}

export default function (data) {
  const voucher = data.vouchers[(__VU - 1) % data.vouchers.length];
  const openedAt = Date.now();
  const ws = new WebSocket(`${WS_URL}?voucher=${encodeURIComponent(voucher)}`);
  let pingSentAt = 0;
  let closing = false;
  let counted = false;
  let pinger;
  const drop = () => {
    clearInterval(pinger);
    if (!closing && !counted) {
      counted = true;
      dropped.add(1);
    }
  };

  ws.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.event === 'hello') {
      toHello.add(Date.now() - openedAt);
      check(event, { 'hello carries the balance': (e) => typeof e.data.coin === 'number' });
      pinger = setInterval(() => {
        pingSentAt = Date.now();
        ws.send(frame('ping'));
      }, PING_MS);
      setTimeout(() => {
        closing = true;
        clearInterval(pinger);
        held.add(1);
        ws.close();
      }, HOLD_MS);
    } else if (event.event === 'pong') {
      pingPong.add(Date.now() - pingSentAt);
    }
  };
  ws.onclose = drop;
  ws.onerror = drop;
}
