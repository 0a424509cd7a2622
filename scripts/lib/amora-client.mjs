// The benches' client of a running Amora server over its public API only (API.md): the
// envelope's seal and open, `api()`, the operator's createUser with a password sign-in, and
// the chat WebSocket. Shared by scripts/lib/persona-bench.mjs and
// scripts/lib/conversation-bench.mjs, so both drivers speak to the server the same way and
// measure any build of it.
//
// Node 22 with `--experimental-websocket` (the global WebSocket).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

// The same sentence end as domain::chat::ends_at_sentence: `.`, `!`, `?`, `…` (then closing
// quotes, brackets or an action's asterisk), CJK `。！？`, or an action's closing asterisk.
export function endsAtSentence(text) {
  const t = text.trimEnd();
  if (!t) return false;
  const stripped = t.replace(/["'”’»)\]」』）_]+$/u, '');
  const last = stripped.at(-1);
  if (['.', '!', '?', '…', '。', '！', '？'].includes(last)) return true;
  if (t.at(-1) === '*' || stripped.at(-1) === '*') {
    const asterisks = (t.match(/\*/g) ?? []).length;
    return asterisks % 2 === 0;
  }
  return false;
}

// One client per server: its own secret key (API.md 1.1), the operator's token for
// createUser and /metrics.
export function amoraClient(baseUrl, adminToken) {
  // API.md 1.1: AES-256-CBC, key = SHA-256 of the secret key, wire = base64(IV ‖ ciphertext).
  const secretKey = randomBytes(24).toString('base64').replace(/[^A-Za-z0-9]/g, 'x').slice(0, 32);
  const aesKey = createHash('sha256').update(secretKey).digest();
  const seal = (plain) => {
    const iv = randomBytes(16);
    const cipher = createCipheriv('aes-256-cbc', aesKey, iv);
    return Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final()]).toString('base64');
  };
  const open = (wire) => {
    const bytes = Buffer.from(wire, 'base64');
    const decipher = createDecipheriv('aes-256-cbc', aesKey, bytes.subarray(0, 16));
    return Buffer.concat([decipher.update(bytes.subarray(16)), decipher.final()]).toString('utf8');
  };

  // A sealed call to `/lust/api{path}`; the envelope's `data`, or an error naming its code.
  async function api(path, payload, voucher, language = 'en') {
    const headers = { 'content-type': 'application/json', secretKey, platformType: 'web', appVersion: '0.0.101', language };
    if (voucher) headers.voucher = voucher;
    const response = await fetch(`${baseUrl}/lust/api${path}`, { method: 'POST', headers, body: JSON.stringify({ requestData: seal(JSON.stringify(payload)) }) });
    const envelope = JSON.parse(open((await response.json()).responseData));
    if (envelope.code !== 200) throw new Error(`${path}: ${envelope.code} ${envelope.msg}`);
    return envelope.data;
  }

  // A new account made by the operator, signed in with its password: its voucher.
  async function newUser(tag, userName = 'Ann') {
    const email = `bench-${Date.now().toString(36)}-${tag}@example.com`;
    const password = 'bench-pass-1';
    const response = await fetch(`${baseUrl}/lust/admin/createUser`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ email, userName, password }),
    });
    if (!response.ok) throw new Error(`createUser: ${response.status} ${await response.text()}`);
    const { userNo } = await response.json();
    const { voucher } = await api('/login/v1/userPasswordLogin', { userNo, password });
    return voucher;
  }

  // The chat socket: `next(deadline)` hands out its events in order.
  function connect(voucher) {
    const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/lust/api/ws?voucher=${voucher}`);
    const queue = [];
    let wake = null;
    socket.addEventListener('message', (event) => {
      queue.push(JSON.parse(String(event.data)));
      wake?.();
    });
    const next = async (deadline) => {
      while (!queue.length) {
        if (Date.now() > deadline) throw new Error('no event in time');
        await new Promise((resolve) => {
          wake = resolve;
          setTimeout(resolve, 500);
        });
      }
      return queue.shift();
    };
    const ready = new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve);
      socket.addEventListener('error', reject);
    });
    return { socket, next, ready };
  }

  // Sends one message and waits for the reply's `chatDone` (or `chatError`); `firstDeltaMs`
  // is the time from sending to the reply's first `chatDelta`.
  async function reply(ws, characterId, content, timeoutMs = 600_000) {
    const started = Date.now();
    ws.socket.send(JSON.stringify({ action: 'chatSend', data: { characterId, content } }));
    const deadline = started + timeoutMs;
    let firstDeltaMs = null;
    for (;;) {
      const event = await ws.next(deadline);
      if (event.event === 'error') throw new Error(`the server refused an action: ${JSON.stringify(event.data)}`);
      if (event.data?.characterId !== characterId) continue;
      if (event.event === 'chatDelta' && firstDeltaMs === null) firstDeltaMs = Date.now() - started;
      if (event.event === 'chatDone') return { ...event.data, firstDeltaMs };
      if (event.event === 'chatError') return { error: event.data, firstDeltaMs };
    }
  }

  // The operator's Prometheus text (`/metrics`).
  async function metrics() {
    return (await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } })).text();
  }

  return { api, newUser, connect, reply, metrics };
}
