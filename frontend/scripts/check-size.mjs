#!/usr/bin/env node
// Prints the gzipped size of the JavaScript the first screen (`/`, the girlfriend home)
// needs, from the production build's manifest, and fails when it is over the budget.
// Usage: npm run build && npm run check:size
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const BUDGET_KB = 200;
// Lazy modules rendered on the first screen, besides the entry and what it imports statically.
const FIRST_SCREEN_DYNAMIC_ENTRIES = ['src/features/home/components/home-page.tsx'];

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const manifestPath = join(dist, '.vite', 'manifest.json');
if (!existsSync(manifestPath)) {
  console.error(`check:size: ${manifestPath} not found; run "npm run build" first`);
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));

// The user app's entry only: the build also has the operator console's entry
// (operator.html), which users never download.
const entryKey = Object.keys(manifest).find((key) => key === 'index.html' && manifest[key].isEntry);
if (!entryKey) {
  console.error('check:size: the manifest has no entry chunk for index.html');
  process.exit(2);
}

const files = new Set();
function collect(key) {
  const chunk = manifest[key];
  if (!chunk) throw new Error(`check:size: ${key} is not in the manifest`);
  if (files.has(chunk.file)) return;
  files.add(chunk.file);
  for (const imported of chunk.imports ?? []) collect(imported);
}
collect(entryKey);
for (const key of FIRST_SCREEN_DYNAMIC_ENTRIES) collect(key);

let total = 0;
const rows = [...files]
  .filter((file) => file.endsWith('.js'))
  .map((file) => {
    const bytes = readFileSync(join(dist, file));
    const gzipped = gzipSync(bytes, { level: 9 }).length;
    total += gzipped;
    return { file, raw: bytes.length, gzipped };
  })
  .sort((a, b) => b.gzipped - a.gzipped);

for (const row of rows) {
  console.log(
    `  ${row.file.padEnd(44)} ${(row.raw / 1024).toFixed(1).padStart(8)} KB raw ${(row.gzipped / 1024).toFixed(1).padStart(7)} KB gzip`,
  );
}
const totalKb = total / 1024;
console.log(`first-screen JS: ${totalKb.toFixed(1)} KB gzipped (budget ${BUDGET_KB} KB, ${rows.length} files)`);
if (totalKb > BUDGET_KB) {
  console.error(`check:size: over budget by ${(totalKb - BUDGET_KB).toFixed(1)} KB`);
  process.exit(1);
}
