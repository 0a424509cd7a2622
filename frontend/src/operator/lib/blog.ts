/**
 * A blog post file as the server's `parse_post` reads it (server/src/content/blog.rs):
 * a `---` line, `name: value` lines for key, title, description, date (YYYY-MM-DD) and cover
 * (all required, each once), a `---` line, then the Markdown body.
 */
export interface PostFields {
  key: string;
  title: string;
  description: string;
  date: string;
  cover: string;
  markdown: string;
}

const FIELDS = ['key', 'title', 'description', 'date', 'cover'] as const;

function quote(value: string): string {
  const line = value.replace(/\r?\n/g, ' ').trim();
  // A value the server would unquote or misread is written in quotes.
  return /^".*"$/.test(line) || line.startsWith('#') || line !== value.trim() ? `"${line}"` : line;
}

export function buildPostFile(post: PostFields): string {
  const head = FIELDS.map((name) => `${name}: ${quote(post[name])}`).join('\n');
  return `---\n${head}\n---\n\n${post.markdown.trim()}\n`;
}

export function parsePostFile(file: string): PostFields {
  const text = file.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  const post: PostFields = { key: '', title: '', description: '', date: '', cover: '', markdown: '' };
  if (!text.startsWith('---\n')) return { ...post, markdown: text };
  const rest = text.slice(4);
  const end = rest.indexOf('\n---\n');
  const head = end >= 0 ? rest.slice(0, end) : rest.replace(/\n---$/, '');
  post.markdown = end >= 0 ? rest.slice(end + 5).trim() : '';
  for (const line of head.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.trim().startsWith('#')) continue;
    const name = line.slice(0, colon).trim();
    let value = line.slice(colon + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if ((FIELDS as readonly string[]).includes(name)) post[name as (typeof FIELDS)[number]] = value;
  }
  return post;
}

/** What the server would refuse, found before sending (the server checks again). */
export function postProblems(post: PostFields): string[] {
  const problems: string[] = [];
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(post.key) || post.key.length > 80)
    problems.push('key: 1 to 80 lowercase letters or digits joined by single hyphens');
  for (const name of ['title', 'description', 'cover'] as const)
    if (!post[name].trim()) problems.push(`${name}: required`);
  if (!isRealDate(post.date)) problems.push('date: a real day written YYYY-MM-DD');
  if (!post.markdown.trim()) problems.push('body: required');
  return problems;
}

export function isRealDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** Today as YYYY-MM-DD (UTC). */
export function today(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** A `datetime-local` input's value (the operator's local time) as seconds since the epoch; null when empty or not a time. */
export function publishAtFromInput(value: string): number | null {
  if (!value) return null;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

/** Seconds since the epoch as a `datetime-local` input's value, in local time. */
export function inputFromPublishAt(seconds: number): string {
  const date = new Date(seconds * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
