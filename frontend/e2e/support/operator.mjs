// The operator's command line against the journeys' server: `amora admin …` with the token
// scripts/e2e.mjs gave the server (E2E_ADMIN_TOKEN) and the same binary (E2E_AMORA_BIN).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BASE_URL } from './browser.mjs';

const run = promisify(execFile);

/** Runs `amora admin <args…> --url <server> --token <token>`; rejects on a non-zero exit. */
export async function amoraAdmin(...args) {
  const bin = process.env.E2E_AMORA_BIN;
  const token = process.env.E2E_ADMIN_TOKEN;
  if (!bin || !token)
    throw new Error('E2E_AMORA_BIN or E2E_ADMIN_TOKEN is not set: run the journeys through scripts/e2e.mjs');
  const { stdout } = await run(bin, ['admin', ...args, '--url', BASE_URL, '--token', token], { timeout: 30_000 });
  return stdout;
}
