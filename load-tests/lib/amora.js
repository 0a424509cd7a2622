// A k6 client of Amora's wire contract (docs/api.md, API.md §1): the encrypted envelope
// (AES-256-CBC, key = SHA-256 of the client's secret key, Base64 of IV ‖ ciphertext), the
// headers every call carries, sign-in, and the WebSocket's frames.

import http from 'k6/http';
import encoding from 'k6/encoding';

export const BASE_URL = (__ENV.BASE_URL || 'http://127.0.0.1:8080').replace(/\/$/, '');
export const WS_URL = BASE_URL.replace(/^http/, 'ws') + '/lust/api/ws';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomText(length) {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let text = '';
  for (const byte of bytes) text += ALPHANUMERIC[byte % ALPHANUMERIC.length];
  return text;
}

// k6 has no TextEncoder; its Base64 codec (in Go, quick) converts between text and UTF-8:
// `b64encode` of a string encodes its UTF-8 bytes, `b64decode(…, 's')` reads them as text.
function utf8(text) {
  return encoding.b64decode(encoding.b64encode(text, 'std'), 'std');
}

function fromUtf8(buffer) {
  return encoding.b64decode(encoding.b64encode(buffer, 'std'), 'std', 's');
}

// One browser: its secret key, the AES key made from it, and its session once signed in.
export class Client {
  static async create() {
    const client = new Client();
    client.secretKey = randomText(32);
    client.distinctId = randomText(16);
    const digest = await crypto.subtle.digest('SHA-256', utf8(client.secretKey));
    client.key = await crypto.subtle.importKey('raw', digest, { name: 'AES-CBC' }, false, ['encrypt', 'decrypt']);
    client.voucher = '';
    return client;
  }

  headers() {
    const headers = {
      secretKey: this.secretKey,
      client: 'pc',
      system: 'Linux',
      platformType: 'web',
      timeZone: '0',
      browserLanguage: 'en-US',
      appVersion: '0.0.101',
      language: 'en',
      nsfw: '0',
      distinctId: this.distinctId,
      'Content-Type': 'application/json',
    };
    if (this.voucher) headers.voucher = this.voucher;
    return headers;
  }

  async seal(payload) {
    const iv = crypto.getRandomValues(new Uint8Array(16));
    const sealed = await crypto.subtle.encrypt({ name: 'AES-CBC', iv }, this.key, utf8(JSON.stringify(payload)));
    const wire = new Uint8Array(16 + sealed.byteLength);
    wire.set(iv, 0);
    wire.set(new Uint8Array(sealed), 16);
    return encoding.b64encode(wire.buffer, 'std');
  }

  async open(responseData) {
    const wire = new Uint8Array(encoding.b64decode(responseData, 'std'));
    const plain = await crypto.subtle.decrypt({ name: 'AES-CBC', iv: wire.slice(0, 16) }, this.key, wire.slice(16));
    return JSON.parse(fromUtf8(plain));
  }

  // An API call (`path` under /lust/api): POST with an encrypted payload, or GET with the
  // query in the path. Answers the opened envelope `{code, msg, success, data}`, or
  // `{code: -status}` when no envelope came back. `name` groups the call in k6's metrics.
  async call(path, payload, name) {
    const url = `${BASE_URL}/lust/api${path}`;
    const params = { headers: this.headers(), tags: { name: name || path.split('?')[0].split('/').pop() } };
    const response =
      payload === undefined
        ? await http.asyncRequest('GET', url, null, params)
        : await http.asyncRequest('POST', url, JSON.stringify({ requestData: await this.seal(payload) }), params);
    if (response.status !== 200 || !response.body) return { code: -response.status, msg: String(response.body) };
    return this.open(JSON.parse(response.body).responseData);
  }

  async signIn(userNo, password) {
    const answer = await this.call('/login/v1/userPasswordLogin', { userNo, password });
    if (answer.code !== 200) throw new Error(`sign-in of ${userNo} failed: ${answer.code} ${answer.msg}`);
    this.voucher = answer.data.voucher;
    return answer.data.userInfo;
  }
}

// Accounts for a run, made through the operator API (`admin.token` as ADMIN_TOKEN), each
// with a password: `[{userNo, password}]`. For `setup()`.
export function createUsers(count, label) {
  const token = __ENV.ADMIN_TOKEN;
  if (!token) throw new Error('ADMIN_TOKEN (the server admin.token) is needed to create load-test users');
  const run = randomText(8).toLowerCase();
  const users = [];
  for (let n = 0; n < count; n++) {
    const password = randomText(12);
    const response = http.post(
      `${BASE_URL}/lust/admin/createUser`,
      JSON.stringify({ email: `${label}-${run}-${n}@loadtest.example`, password }),
      { headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, tags: { name: 'admin' } },
    );
    if (response.status !== 200) throw new Error(`createUser: ${response.status} ${response.body}`);
    users.push({ userNo: JSON.parse(response.body).userNo, password });
  }
  return users;
}

// Makes a user a paid one (no daily message limit), through the operator API.
export function makePaid(userNo) {
  const response = http.post(
    `${BASE_URL}/lust/admin/setVip`,
    JSON.stringify({ user: userNo, vipType: 1 }),
    { headers: { Authorization: `Bearer ${__ENV.ADMIN_TOKEN}`, 'Content-Type': 'application/json' }, tags: { name: 'admin' } },
  );
  if (response.status !== 200) throw new Error(`setVip: ${response.status} ${response.body}`);
}

export function frame(action, data) {
  return JSON.stringify({ action, data: data || {} });
}
