#!/usr/bin/env node
// Runs the Playwright journeys (e2e/*.test.mjs, node's test runner) against the real server:
// starts a real SMTP server (server/tests/support/smtp_sink.py, aiosmtpd, with AMORA_PYTHON,
// default python3) that writes each received mail as JSON into a folder, then `amora` from
// the repository root on a free port with a fresh data directory, sending mail to that SMTP
// server; waits for /healthz, runs the journeys, stops both. Needs `npm run build`
// (frontend/dist) and the server binary: AMORA_BIN, default ../target/debug/amora (relative
// to frontend/). The server gets a random operator token, which the journeys receive with
// the binary's path (E2E_ADMIN_TOKEN, E2E_AMORA_BIN) to run `amora admin …` against it.
// Chat replies come from the real embedded model: AMORA_MODEL_PATH (exported by the test
// command) names the GGUF file, else the server's default under AMORA_CACHE; replies are
// kept short (AMORA_CHAT__MAX_REPLY_TOKENS, default here 40) so the chat journey stays quick.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const frontend = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(frontend, '..');
const outputDir = join(frontend, 'test-output');
const serverBin = resolve(frontend, process.env.AMORA_BIN ?? '../target/debug/amora');
const HEALTH_TIMEOUT_MS = Number(process.env.AMORA_HEALTH_TIMEOUT_MS ?? 180_000);
const SMTP_READY_TIMEOUT_MS = 30_000;
const python = process.env.AMORA_PYTHON || 'python3';
const smtpSink = join(repoRoot, 'server', 'tests', 'support', 'smtp_sink.py');

function fail(message) {
  console.error(`test:e2e: ${message}`);
  console.log('e2e: 0 passed, 1 failed');
  process.exit(1);
}

if (!existsSync(serverBin)) fail(`server binary not found at ${serverBin} (build it, or set AMORA_BIN)`);
if (!existsSync(join(frontend, 'dist', 'index.html'))) fail('frontend/dist is missing; run "npm run build" first');
if (!existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'))
  fail('Chromium not found at /usr/bin/chromium (apt-get install chromium)');
if (!existsSync(smtpSink)) fail(`SMTP sink not found at ${smtpSink}`);

function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

async function waitForHealth(baseUrl, server) {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`server exited early with code ${server.exitCode}`);
    try {
      const response = await fetch(`${baseUrl}/healthz`);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no 200 from ${baseUrl}/healthz within ${HEALTH_TIMEOUT_MS / 1000} s`);
}

/**
 * Starts the SMTP sink and resolves with its port once it prints `ready <port>`. Closing its
 * stdin (or SIGTERM) stops it, so it never outlives this script.
 */
function startSmtpSink(mailDir, log) {
  const sink = spawn(python, [smtpSink, mailDir], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
  // Ending stdin of a sink that already died must not crash this script.
  sink.stdin.on('error', () => undefined);
  sink.stderr.pipe(log, { end: false });
  const ready = new Promise((resolveReady, reject) => {
    let buffered = '';
    const timer = setTimeout(
      () => reject(new Error(`the SMTP sink did not start within ${SMTP_READY_TIMEOUT_MS / 1000} s`)),
      SMTP_READY_TIMEOUT_MS,
    );
    sink.stdout.on('data', (chunk) => {
      buffered += chunk;
      const match = buffered.match(/^ready (\d+)$/m);
      if (match) {
        clearTimeout(timer);
        resolveReady(Number(match[1]));
      }
    });
    sink.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${python}: ${error.message} (set AMORA_PYTHON to a Python with aiosmtpd)`));
    });
    sink.once('exit', (code) => {
      clearTimeout(timer);
      reject(
        new Error(
          `the SMTP sink exited with code ${code} (does ${python} have aiosmtpd? set AMORA_PYTHON); see server.log`,
        ),
      );
    });
  });
  return { sink, ready };
}

function stop(server) {
  return new Promise((resolveStop) => {
    if (server.exitCode !== null || server.signalCode !== null) return resolveStop();
    const killer = setTimeout(() => server.kill('SIGKILL'), 10_000);
    server.once('exit', () => {
      clearTimeout(killer);
      resolveStop();
    });
    server.kill('SIGTERM');
  });
}

mkdirSync(outputDir, { recursive: true });
const dataDir = mkdtempSync(join(tmpdir(), 'amora-e2e-'));
const mailDir = join(dataDir, 'mail');
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
const adminToken = randomBytes(24).toString('hex');
const serverLog = createWriteStream(join(outputDir, 'server.log'));

let server = null;
const { sink, ready: smtpReady } = startSmtpSink(mailDir, serverLog);
smtpReady.catch(() => undefined);

// The journeys' exit code, or 1 when starting or reading them failed (the catch below).
let exitCode;
const cleanUp = async () => {
  if (server) await stop(server);
  sink.stdin.end();
  await stop(sink);
  serverLog.end();
  rmSync(dataDir, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => void cleanUp().then(() => process.exit(130)));
}

try {
  const smtpPort = await smtpReady;
  console.log(`test:e2e: SMTP server on port ${smtpPort} (mail in ${mailDir})`);
  console.log(`test:e2e: starting ${serverBin} on port ${port} (data ${dataDir})`);
  server = spawn(serverBin, [], {
    cwd: repoRoot,
    env: {
      ...process.env,
      AMORA_HTTP__PORT: String(port),
      // Mailed sign-in links point here, and cookies are set for this origin.
      AMORA_HTTP__PUBLIC_BASE_URL: baseUrl,
      AMORA_STORE__DATA_DIR: dataDir,
      AMORA_MAIL__SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      // Turns the operator API on, for journeys that credit coins or make a user paid.
      AMORA_ADMIN__TOKEN: adminToken,
      ...(process.env.AMORA_MODEL_PATH
        ? { AMORA_CHAT__MODEL__EMBEDDED__MODEL_PATH: process.env.AMORA_MODEL_PATH }
        : {}),
      AMORA_CHAT__MAX_REPLY_TOKENS: process.env.AMORA_CHAT__MAX_REPLY_TOKENS ?? '40',
      // A few free messages a day, so the payments journey reaches the out-of-credits wall
      // quickly; the chat journey spends two.
      AMORA_CHAT__FREE_MESSAGES_PER_DAY: process.env.AMORA_CHAT__FREE_MESSAGES_PER_DAY ?? '3',
      // Every journey asks for its sign-in link from 127.0.0.1: more than the default ten
      // an hour is the suite, not an abuser (the per-address limit has its own server tests).
      AMORA_LIMITS__SIGN_IN_LINKS_PER_IP_PER_HOUR: '60',
      // Accounts count as established at once, so the adult-content journey's new account can
      // see explicit characters when it turns adult content on (with it off, as browsers start,
      // a member sees what a new account sees).
      AMORA_ACCOUNTS__ESTABLISHED_AFTER_SECS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout.pipe(serverLog, { end: false });
  server.stderr.pipe(serverLog, { end: false });
  await waitForHealth(baseUrl, server);
  console.log(`test:e2e: server ready at ${baseUrl}`);
  const tapFile = join(outputDir, 'e2e.tap');
  exitCode = await new Promise((resolveRun) => {
    const runner = spawn(
      process.execPath,
      [
        '--test',
        '--test-concurrency=1',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=tap',
        `--test-reporter-destination=${tapFile}`,
        ...(process.env.E2E_ONLY ? ['--test-name-pattern', process.env.E2E_ONLY] : []),
        'e2e/',
      ],
      {
        cwd: frontend,
        stdio: 'inherit',
        env: {
          ...process.env,
          E2E_BASE_URL: baseUrl,
          E2E_OUTPUT_DIR: outputDir,
          E2E_MAIL_DIR: mailDir,
          E2E_ADMIN_TOKEN: adminToken,
          E2E_AMORA_BIN: serverBin,
        },
      },
    );
    runner.on('exit', (code) => resolveRun(code ?? 1));
  });
  const tap = existsSync(tapFile) ? readFileSync(tapFile, 'utf8') : '';
  const count = (name) => Number(tap.match(new RegExp(`^# ${name} (\\d+)$`, 'm'))?.[1] ?? 0);
  const passed = count('pass');
  const failed = count('fail') + (exitCode !== 0 && count('fail') === 0 ? 1 : 0);
  console.log(`screenshots and server log: ${outputDir}`);
  console.log(`e2e: ${passed} passed, ${failed} failed`);
} catch (error) {
  console.error(`test:e2e: ${error.message}; see ${join(outputDir, 'server.log')}`);
  console.log('e2e: 0 passed, 1 failed');
  exitCode = 1;
} finally {
  await cleanUp();
}
process.exit(exitCode);
