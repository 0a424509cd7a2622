/**
 * The blog editor's preview. Raw HTML in the Markdown is dropped, not rendered, and links
 * or images other than http(s), mailto and site-relative ones lose their address: the
 * preview is the operator's own text, but it is shown inside the console, which holds a
 * privileged session, so a pasted `<img onerror>` or `javascript:` link must never run.
 * Dropping raw HTML also matches what readers see: the server's renderer strips it too.
 */
import { Marked } from 'marked';

const SAFE_URL = /^(https?:|mailto:|\/(?!\/)|#)/i;

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html() {
      return '';
    },
    link({ href, title, tokens }) {
      const text = this.parser.parseInline(tokens);
      if (!SAFE_URL.test(href.trim())) return text;
      const titled = title ? ` title="${escapeAttribute(title)}"` : '';
      return `<a href="${escapeAttribute(href)}"${titled} rel="noopener noreferrer" target="_blank">${text}</a>`;
    },
    image({ href, text }) {
      if (!SAFE_URL.test(href.trim())) return escapeAttribute(text);
      return `<img src="${escapeAttribute(href)}" alt="${escapeAttribute(text)}">`;
    },
  },
});

export function renderMarkdown(source: string): string {
  return marked.parse(source, { async: false });
}
