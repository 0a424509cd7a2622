// A client written from API.md alone, in another language than the server: Node's
// WebCrypto and fetch, no packages. Usage: node envelope-client.mjs http://127.0.0.1:PORT
// Exits non-zero with a reason when the server does not speak the contract.

const base = process.argv[2];
if (!base) {
  console.error('usage: node envelope-client.mjs <base-url>');
  process.exit(2);
}
const { subtle } = globalThis.crypto;
const getRandomValues = (array) => globalThis.crypto.getRandomValues(array);
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function newSecretKey() {
  const bytes = getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}

async function aesKey(secret) {
  const digest = await subtle.digest('SHA-256', new TextEncoder().encode(secret));
  return subtle.importKey('raw', digest, { name: 'AES-CBC' }, false, ['encrypt', 'decrypt']);
}

async function seal(key, payload) {
  const iv = getRandomValues(new Uint8Array(16));
  const body = new TextEncoder().encode(JSON.stringify(payload));
  const ciphertext = new Uint8Array(await subtle.encrypt({ name: 'AES-CBC', iv }, key, body));
  return Buffer.concat([iv, ciphertext]).toString('base64');
}

async function open(key, wire) {
  const bytes = Buffer.from(wire, 'base64');
  const plaintext = await subtle.decrypt({ name: 'AES-CBC', iv: bytes.subarray(0, 16) }, key, bytes.subarray(16));
  return JSON.parse(new TextDecoder().decode(plaintext));
}

function headers(secret) {
  return {
    'content-type': 'application/json',
    secretKey: secret,
    client: 'pc',
    system: 'Linux',
    platformType: 'web',
    timeZone: '0',
    browserLanguage: 'en-US',
    appVersion: '0.0.101',
    language: 'en',
    utm_source: '',
    utm_medium: '',
    nsfw: '0',
    distinctId: 'crosscheck',
  };
}

function check(condition, message) {
  if (!condition) {
    console.error(`crosscheck failed: ${message}`);
    process.exit(1);
  }
}

const secret = newSecretKey();
const key = await aesKey(secret);

const listResponse = await fetch(`${base}/lust/api/user/v1/character/getCharacterList`, {
  method: 'POST',
  headers: headers(secret),
  body: JSON.stringify({ requestData: await seal(key, { pageNo: 1, pageSize: 3, gender: 1 }) }),
});
check(listResponse.status === 200, `list status ${listResponse.status}`);
const list = await open(key, (await listResponse.json()).responseData);
check(list.code === 200 && list.success === true, `list code ${list.code}`);
check(Array.isArray(list.data) && list.data.length === 3, 'three cards');
check(list.data.every((card) => card.gender === 1 && typeof card.characterName === 'string'), 'guys only');

const userResponse = await fetch(`${base}/lust/api/user/v1/getUserInfo`, { headers: headers(secret) });
const user = await open(key, (await userResponse.json()).responseData);
check(user.code === 200 && user.data === null, 'signed-out user info is null');

const badResponse = await fetch(`${base}/lust/api/user/v1/character/getCharacterList`, {
  method: 'POST',
  headers: headers(secret),
  body: JSON.stringify({ requestData: await seal(key, { pageNo: 'one', pageSize: 3, gender: 1 }) }),
});
const bad = await open(key, (await badResponse.json()).responseData);
check(bad.code === 10001 && bad.success === false, `param error code ${bad.code}`);

console.log(`crosscheck ok: ${list.data.map((card) => card.characterName).join(', ')}`);
