/**
 * The encryption layer of API.md 1.1: AES-256-CBC (PKCS#7) with key = SHA-256(secretKey),
 * a fresh 16-byte IV per message, wire text = standard Base64 of IV ‖ ciphertext.
 * It keeps casual scrapers away; TLS and the session provide the real security.
 */

const SECRET_KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const SECRET_KEY_LENGTH = 32;
const IV_LENGTH = 16;

/** 32 characters from [A-Za-z0-9], uniformly drawn (rejection sampling avoids modulo bias). */
export function generateSecretKey(): string {
  const out: string[] = [];
  const limit = 256 - (256 % SECRET_KEY_ALPHABET.length);
  while (out.length < SECRET_KEY_LENGTH) {
    const bytes = crypto.getRandomValues(new Uint8Array(SECRET_KEY_LENGTH * 2));
    for (const byte of bytes) {
      if (byte < limit && out.length < SECRET_KEY_LENGTH)
        out.push(SECRET_KEY_ALPHABET[byte % SECRET_KEY_ALPHABET.length]!);
    }
  }
  return out.join('');
}

export function isValidSecretKey(value: string | null | undefined): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9]{32}$/.test(value);
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(binary);
}

export function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.trim());
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const keyCache = new Map<string, Promise<CryptoKey>>();

function aesKeyFor(secretKey: string): Promise<CryptoKey> {
  let key = keyCache.get(secretKey);
  if (!key) {
    key = crypto.subtle
      .digest('SHA-256', new TextEncoder().encode(secretKey))
      .then((digest) => crypto.subtle.importKey('raw', digest, { name: 'AES-CBC' }, false, ['encrypt', 'decrypt']));
    keyCache.set(secretKey, key);
  }
  return key;
}

/** Encrypts UTF-8 text into the wire form (Base64 of IV ‖ ciphertext). */
export async function encryptText(secretKey: string, plaintext: string): Promise<string> {
  const key = await aesKeyFor(secretKey);
  const iv = crypto.getRandomValues(new Uint8Array(IV_LENGTH));
  const cipher = new Uint8Array(
    await crypto.subtle.encrypt({ name: 'AES-CBC', iv }, key, new TextEncoder().encode(plaintext)),
  );
  const wire = new Uint8Array(IV_LENGTH + cipher.length);
  wire.set(iv, 0);
  wire.set(cipher, IV_LENGTH);
  return bytesToBase64(wire);
}

/** Decrypts the wire form back into UTF-8 text; rejects on a bad key, padding or length. */
export async function decryptText(secretKey: string, wire: string): Promise<string> {
  const bytes = base64ToBytes(wire);
  if (bytes.length < IV_LENGTH * 2 || bytes.length % IV_LENGTH !== 0) {
    throw new Error('envelope: ciphertext has an invalid length');
  }
  const key = await aesKeyFor(secretKey);
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-CBC', iv: bytes.slice(0, IV_LENGTH) },
    key,
    bytes.slice(IV_LENGTH),
  );
  return new TextDecoder().decode(plain);
}
