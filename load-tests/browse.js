// Browsing: what a visitor's home page and character pages call, through the encrypted
// envelope. Half the visitors are signed in (password sign-in of users made in setup()).
//
//   scripts/load-test browse                     # starts a server, then runs this
//   k6 run -e BASE_URL=http://127.0.0.1:8080 -e ADMIN_TOKEN=… load-tests/browse.js
//
// VUS (20) and DURATION (30s) tune the load; the thresholds are the pass mark.

import { check } from 'k6';
import { Counter } from 'k6/metrics';
import { Client, createUsers } from './lib/amora.js';

const VUS = Number(__ENV.VUS || 20);
const envelopeErrors = new Counter('envelope_errors');

export const options = {
  scenarios: {
    browse: { executor: 'constant-vus', vus: VUS, duration: __ENV.DURATION || '30s' },
  },
  thresholds: Object.assign(
    {
      http_req_failed: ['rate<0.01'],
      checks: ['rate>0.99'],
      envelope_errors: ['count==0'],
    },
    // Latency marks for load runs; a smoke run (SMOKE=1, in the test command) checks behaviour only.
    __ENV.SMOKE
      ? {}
      : {
          'http_req_duration{name:getCharacterList}': ['p(95)<250'],
          'http_req_duration{name:getCharacterInfo}': ['p(95)<250'],
        },
  ),
};

export function setup() {
  return { users: createUsers(Math.ceil(VUS / 2), 'browse') };
}

let client;

export default async function (data) {
  if (!client) {
    client = await Client.create();
    const user = data.users[(__VU - 1) % data.users.length];
    if (__VU % 2 === 0) await client.signIn(user.userNo, user.password);
  }
  const ok = (answer, what) => {
    const good = check(answer, { [`${what} answers 200`]: (a) => a.code === 200 });
    if (!good) envelopeErrors.add(1, { call: what });
    return good;
  };
  ok(await client.call('/user/v1/config/getWebConfig', {}), 'getWebConfig');
  ok(await client.call('/user/v1/getUserInfo'), 'getUserInfo');
  const gender = Math.random() < 0.5 ? 0 : 1;
  let cards = [];
  for (let pageNo = 1; pageNo <= 2; pageNo++) {
    const page = await client.call('/user/v1/character/getCharacterList', { pageNo, pageSize: 30, gender });
    if (!ok(page, 'getCharacterList')) return;
    check(page, { 'a full page of 30 cards': (a) => a.data.length === 30 });
    cards = cards.concat(page.data);
  }
  const card = cards[Math.floor(Math.random() * cards.length)];
  const info = await client.call('/user/v1/character/getCharacterInfo', { characterId: card.characterId });
  ok(info, 'getCharacterInfo');
  check(info, { 'the character opened is the card clicked': (a) => a.data && a.data.characterId === card.characterId });
}
