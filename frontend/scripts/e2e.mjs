#!/usr/bin/env node
// Runs the Playwright journeys (e2e/*.test.mjs, node's test runner) against the real server,
// in E2E_SHARDS shards side by side (default 2; 1 with E2E_ONLY), each shard a share of the
// files against a server of its own. For each shard it starts a real SMTP server
// (server/tests/support/smtp_sink.py, aiosmtpd, with AMORA_PYTHON, default python3) that
// writes each received mail as JSON into a folder, then `amora` from the repository root on a
// free port with a fresh data directory, sending mail to that SMTP server; waits for /healthz, runs the shard's journeys, stops both. Needs `npm run build`
// (frontend/dist) and the server binary: AMORA_BIN, default ../target/debug/amora (relative
// to frontend/). The server gets a random operator token, which the journeys receive with
// the binary's path (E2E_ADMIN_TOKEN, E2E_AMORA_BIN) to run `amora admin …` against it.
// Chat replies come from the real embedded model: AMORA_MODEL_PATH (exported by the test
// command) names the GGUF file, else the server's default under AMORA_CACHE; replies are
// kept short (AMORA_CHAT__MAX_REPLY_TOKENS, default here 40) so the chat journey stays quick.
// With AMORA_LLAMA_LIB (exported by the test command) the model runs on llama.cpp, as served.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
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

/**
 * Seconds each journey file took in a clean run of the test command (BENCHMARKS.md "Test
 * command"): the files are dealt to the shards longest first, each to the shard with the
 * least time so far. A file missing here counts as `DEFAULT_FILE_SECONDS`.
 */
const FILE_SECONDS = {
  'groups.test.mjs': 220,
  'payments.test.mjs': 153,
  // Estimated: not yet timed in a clean run.
  'operator.test.mjs': 90,
  'call.test.mjs': 60,
  'swipes.test.mjs': 50,
  'conversation.test.mjs': 110,
  'polish.test.mjs': 110,
  'create.test.mjs': 68,
  'chat.test.mjs': 55,
  'trust.test.mjs': 58,
  'account.test.mjs': 48,
  'journeys.test.mjs': 38,
  'images.test.mjs': 31,
  'content.test.mjs': 25,
  'persona.test.mjs': 18,
  'realtime.test.mjs': 7,
};
const DEFAULT_FILE_SECONDS = 30;

/** The journey files dealt into `count` shards of about equal time. */
function shardFiles(files, count) {
  const shards = Array.from({ length: count }, () => ({ files: [], seconds: 0 }));
  const weight = (file) => FILE_SECONDS[file] ?? DEFAULT_FILE_SECONDS;
  for (const file of [...files].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b))) {
    const lightest = shards.reduce((best, shard) => (shard.seconds < best.seconds ? shard : best));
    lightest.files.push(file);
    lightest.seconds += weight(file);
  }
  return shards.filter((shard) => shard.files.length > 0);
}

/** Copies a child's output lines to ours, each after `prefix`. */
function relay(stream, prefix, out) {
  let buffered = '';
  stream.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop();
    for (const line of lines) out.write(`${prefix}${line}\n`);
  });
  stream.on('end', () => {
    if (buffered) out.write(`${prefix}${buffered}\n`);
  });
}

/** How many of the server's error and warning lines a failing shard prints. */
const TROUBLE_LINES = 40;

/**
 * Prints the newest error and warning lines (and panics) of a failing shard's server log:
 * CI keeps only the test command's output, and a journey's "code 50000" says nothing of
 * its cause without them.
 */
async function printServerTrouble(serverLog, serverLogPath, prefix) {
  await new Promise((resolveFlush) => serverLog.write('', resolveFlush));
  const lines = readFileSync(serverLogPath, 'utf8').split('\n');
  const trouble = lines.filter((line) => /\b(ERROR|WARN)\b|panicked/.test(line)).slice(-TROUBLE_LINES);
  console.log(`${prefix}server log: the last ${trouble.length} error and warning lines (all in ${serverLogPath})`);
  for (const line of trouble) console.log(`${prefix}  ${line.slice(0, 600)}`);
}

/**
 * One shard: its own SMTP sink, its own server (port, data directory, operator token) and
 * the journeys of `files`, one file at a time. Journeys of one shard share a server as they
 * did when there was one; the shards share nothing, so a journey that changes the catalogue
 * (content.test hides a character) is seen only by the journeys of its own shard.
 * Resolves with the shard's counts; never rejects.
 */
async function runShard(index, files, shardCount) {
  const name = shardCount > 1 ? `shard ${index + 1}/${shardCount}` : 'journeys';
  const suffix = shardCount > 1 ? `-${index + 1}` : '';
  const prefix = shardCount > 1 ? `[${index + 1}] ` : '';
  const dataDir = mkdtempSync(join(tmpdir(), 'amora-e2e-'));
  const mailDir = join(dataDir, 'mail');
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const adminToken = randomBytes(24).toString('hex');
  const serverLogPath = join(outputDir, `server${suffix}.log`);
  const serverLog = createWriteStream(serverLogPath);
  const tapFile = join(outputDir, `e2e${suffix}.tap`);
  rmSync(tapFile, { force: true });

  let server = null;
  const { sink, ready: smtpReady } = startSmtpSink(mailDir, serverLog);
  smtpReady.catch(() => undefined);
  const cleanUp = async () => {
    if (server) await stop(server);
    sink.stdin.end();
    await stop(sink);
    serverLog.end();
    rmSync(dataDir, { recursive: true, force: true });
  };
  cleanUps.push(cleanUp);

  try {
    const smtpPort = await smtpReady;
    console.log(`test:e2e: ${name}: SMTP server on port ${smtpPort} (mail in ${mailDir})`);
    console.log(`test:e2e: ${name}: starting ${serverBin} on port ${port} (data ${dataDir})`);
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
        // The product's engine, as ./scripts/run serves it: llama.cpp in-process (the test
        // command exports the library it built). Without it the server falls back to candle,
        // several times slower here and writing other replies than users get.
        ...(process.env.AMORA_LLAMA_LIB
          ? { AMORA_CHAT__MODEL__EMBEDDED__LLAMA_LIBRARY: process.env.AMORA_LLAMA_LIB }
          : {}),
        // Shards side by side share the cores: one model thread each, so two servers' spinning
        // compute threads never fight over the same two cores.
        ...(shardCount > 1 && !process.env.AMORA_CHAT__MODEL__EMBEDDED__THREADS
          ? { AMORA_CHAT__MODEL__EMBEDDED__THREADS: String(Math.max(1, Math.floor(cpus().length / shardCount))) }
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
    console.log(`test:e2e: ${name}: server ready at ${baseUrl}; ${files.join(', ')}`);
    const exitCode = await new Promise((resolveRun) => {
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
          ...files.map((file) => join('e2e', file)),
        ],
        {
          cwd: frontend,
          stdio: ['ignore', 'pipe', 'pipe'],
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
      relay(runner.stdout, prefix, process.stdout);
      relay(runner.stderr, prefix, process.stderr);
      runner.on('exit', (code) => resolveRun(code ?? 1));
    });
    const tap = existsSync(tapFile) ? readFileSync(tapFile, 'utf8') : '';
    const count = (label) => Number(tap.match(new RegExp(`^# ${label} (\\d+)$`, 'm'))?.[1] ?? 0);
    const failed = count('fail') + (exitCode !== 0 && count('fail') === 0 ? 1 : 0);
    if (failed > 0) await printServerTrouble(serverLog, serverLogPath, prefix);
    return { passed: count('pass'), failed };
  } catch (error) {
    console.error(`test:e2e: ${name}: ${error.message}; see ${serverLogPath}`);
    return { passed: 0, failed: 1 };
  } finally {
    await cleanUp();
  }
}

mkdirSync(outputDir, { recursive: true });
const cleanUps = [];
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => void Promise.all(cleanUps.map((cleanUp) => cleanUp())).then(() => process.exit(130)));
}
// Two shards by default: the journeys mostly wait on pages and replies, so two run side by
// side on two cores in little more than half the time (BENCHMARKS.md "Test command").
// E2E_FILES (comma-separated file names) runs only those files, to go back over a failure.
const only = process.env.E2E_FILES?.split(',')
  .map((file) => file.trim())
  .filter(Boolean);
const files = readdirSync(join(frontend, 'e2e'))
  .filter((file) => file.endsWith('.test.mjs') && (!only || only.includes(file)))
  .sort();
const shardCount = Math.max(1, Number(process.env.E2E_SHARDS ?? (process.env.E2E_ONLY ? 1 : 2)));
const shards = shardFiles(files, shardCount);
const results = await Promise.all(shards.map((shard, index) => runShard(index, shard.files, shards.length)));
const passed = results.reduce((sum, result) => sum + result.passed, 0);
const failed = results.reduce((sum, result) => sum + result.failed, 0);
console.log(`screenshots and server logs: ${outputDir}`);
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
