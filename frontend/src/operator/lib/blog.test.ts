import { describe, expect, it } from 'vitest';
import {
  buildPostFile,
  inputFromPublishAt,
  isRealDate,
  parsePostFile,
  postProblems,
  publishAtFromInput,
  type PostFields,
} from '@/operator/lib/blog';
import { renderMarkdown } from '@/operator/lib/markdown';

const post: PostFields = {
  key: 'new-post',
  title: 'A title: with colon',
  description: 'Short',
  date: '2026-11-30',
  cover: '/blog/cover.webp',
  markdown: '# Hello\n\nText.',
};

describe('blog post files', () => {
  it('writes the front matter the server parses, and reads it back', () => {
    const file = buildPostFile(post);
    expect(file.startsWith('---\nkey: new-post\ntitle: A title: with colon\n')).toBe(true);
    expect(file).toContain('\n---\n\n# Hello');
    expect(parsePostFile(file)).toEqual(post);
  });

  it('quotes values the server would unquote, and unquotes on reading', () => {
    const file = buildPostFile({ ...post, title: '"Quoted"' });
    expect(file).toContain('title: ""Quoted""');
    expect(parsePostFile(file).title).toBe('"Quoted"');
    expect(parsePostFile('---\ntitle: "Hi"\n---\nBody').title).toBe('Hi');
  });

  it('finds what the server would refuse', () => {
    expect(postProblems(post)).toEqual([]);
    const problems = postProblems({ ...post, key: 'Bad Key', date: '2026-02-30', cover: '' });
    expect(problems).toHaveLength(3);
    expect(isRealDate('2024-02-29')).toBe(true);
    expect(isRealDate('2023-02-29')).toBe(false);
  });
});

describe('the time to publish at', () => {
  it('reads the local date-time input as seconds since the epoch, and writes it back', () => {
    const seconds = publishAtFromInput('2026-12-01T09:30');
    expect(seconds).toBe(Math.floor(new Date(2026, 11, 1, 9, 30).getTime() / 1000));
    expect(inputFromPublishAt(seconds!)).toBe('2026-12-01T09:30');
    expect(publishAtFromInput('')).toBeNull();
    expect(publishAtFromInput('not a time')).toBeNull();
  });
});

describe('the Markdown preview', () => {
  it('renders Markdown but drops raw HTML and unsafe addresses', () => {
    const html = renderMarkdown(
      '**bold** <img src=x onerror=alert(1)> <script>alert(2)</script>\n\n[ok](https://a.example) [bad](javascript:alert(3)) ![i](data:text/html,x)',
    );
    expect(html).toContain('<strong>bold</strong>');
    expect(html).not.toContain('onerror');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('data:text');
    expect(html).toContain('<a href="https://a.example"');
  });
});
