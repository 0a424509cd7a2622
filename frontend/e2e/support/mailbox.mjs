// The mail the server sent, as the test command's SMTP server stored it: one JSON file
// {from, to, subject, text, html} per message in E2E_MAIL_DIR (scripts/e2e.mjs).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const MAIL_DIR = process.env.E2E_MAIL_DIR;

function messages() {
  if (!MAIL_DIR || !existsSync(MAIL_DIR)) return [];
  return readdirSync(MAIL_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(MAIL_DIR, name), 'utf8')));
}

/** Waits for the newest message to `address` and returns it. */
export async function waitForMail(address, { timeout = 15_000 } = {}) {
  if (!MAIL_DIR) throw new Error('E2E_MAIL_DIR is not set: run the journeys through scripts/e2e.mjs');
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    const mine = messages().filter((mail) => mail.to.some((to) => to.toLowerCase() === address.toLowerCase()));
    if (mine.length > 0) return mine[mine.length - 1];
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no mail to ${address} within ${timeout / 1000} s`);
}

/** The one-time sign-in link of a sign-in mail, with the page to return to when it names one. */
export function signInLink(mail) {
  const link = mail.text.match(
    /https?:\/\/\S+\/lust\/api\/login\/v1\/emailLoginBack\?token=[A-Za-z0-9_-]+(&to=[A-Za-z0-9_.~%-]+)?/,
  )?.[0];
  if (!link) throw new Error(`no sign-in link in: ${mail.text}`);
  return link;
}
