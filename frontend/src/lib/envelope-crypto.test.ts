import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  base64ToBytes,
  bytesToBase64,
  decryptText,
  encryptText,
  generateSecretKey,
  isValidSecretKey,
} from '@/lib/envelope-crypto';

const KEY = 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z';

/** An independent implementation (Node's OpenSSL binding) of API.md 1.1, to cross-check WebCrypto. */
function nodeEncrypt(secretKey: string, plaintext: string): string {
  const key = createHash('sha256').update(secretKey, 'utf8').digest();
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  return Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final()]).toString('base64');
}

function nodeDecrypt(secretKey: string, wire: string): string {
  const key = createHash('sha256').update(secretKey, 'utf8').digest();
  const bytes = Buffer.from(wire, 'base64');
  const decipher = createDecipheriv('aes-256-cbc', key, bytes.subarray(0, 16));
  return Buffer.concat([decipher.update(bytes.subarray(16)), decipher.final()]).toString('utf8');
}

describe('secret key', () => {
  it('is 32 characters from [A-Za-z0-9] and differs between calls', () => {
    const a = generateSecretKey();
    const b = generateSecretKey();
    expect(a).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(isValidSecretKey(a)).toBe(true);
    expect(a).not.toBe(b);
  });

  it('rejects keys of the wrong length or alphabet', () => {
    expect(isValidSecretKey('short')).toBe(false);
    expect(isValidSecretKey(`${'a'.repeat(31)}-`)).toBe(false);
    expect(isValidSecretKey(null)).toBe(false);
  });
});

describe('envelope encryption (API.md 1.1)', () => {
  it('round-trips UTF-8 text', async () => {
    const text = JSON.stringify({ hello: 'wörld ❤ 日本語', n: 1 });
    expect(await decryptText(KEY, await encryptText(KEY, text))).toBe(text);
  });

  it('uses a fresh IV per message', async () => {
    const a = await encryptText(KEY, '{}');
    const b = await encryptText(KEY, '{}');
    expect(a).not.toBe(b);
    expect(base64ToBytes(a).slice(0, 16)).not.toEqual(base64ToBytes(b).slice(0, 16));
  });

  it('writes standard padded Base64 of IV ‖ ciphertext in whole AES blocks', async () => {
    const wire = await encryptText(KEY, 'x'.repeat(20));
    expect(wire).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(base64ToBytes(wire).length).toBe(16 + 32);
  });

  it('is read by an independent AES-256-CBC implementation, and reads it', async () => {
    const text = '{"code":200,"msg":"success","success":true,"data":[1,2,3]}';
    expect(nodeDecrypt(KEY, await encryptText(KEY, text))).toBe(text);
    expect(await decryptText(KEY, nodeEncrypt(KEY, text))).toBe(text);
  });

  it('fails with the wrong key or a truncated message', async () => {
    const wire = await encryptText(KEY, '{"a":1}');
    await expect(decryptText('Zb3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z', wire)).rejects.toThrow();
    await expect(decryptText(KEY, bytesToBase64(base64ToBytes(wire).slice(0, 20)))).rejects.toThrow();
  });
});

interface Vector {
  secretKey: string;
  plaintext: string;
  wire: string;
}

// Vitest runs from frontend/; the vectors live in the server crate next to it.
const vectorsPath = resolve(process.cwd(), '../server/tests/vectors/envelope.json');

describe('the Rust server test vectors (server/tests/vectors/envelope.json)', () => {
  it('exist, so that both sides are checked against the same bytes', () => {
    expect(existsSync(vectorsPath), `missing ${vectorsPath}`).toBe(true);
  });

  it.runIf(existsSync(vectorsPath))('decrypt to their plaintext with their key', async () => {
    const { vectors } = JSON.parse(readFileSync(vectorsPath, 'utf8')) as { vectors: Vector[] };
    expect(vectors.length).toBeGreaterThan(0);
    for (const vector of vectors) {
      expect(await decryptText(vector.secretKey, vector.wire)).toBe(vector.plaintext);
    }
  });
});
