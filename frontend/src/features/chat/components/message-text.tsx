import type { ReactNode } from 'react';

/**
 * The inline emphasis characters write, as roleplay chat writes it: `*action*` and `_aside_`
 * in italics (narration), `**word**` and `__word__` in bold, `***both***`. As in Markdown, a
 * mark opens before a non-space and closes after one (`2 * 3 * 4` stays), and underscores
 * count only at word edges (`snake_case` stays). Nothing else is markup: headings,
 * links and HTML stay plain text (every part is a React text node, never parsed HTML).
 */
const EMPHASIS =
  /\*\*\*(?!\s)([^*\n]+?)(?<!\s)\*\*\*|\*\*(?!\s)([^\n]+?)(?<!\s)\*\*|(?<![\p{L}\p{N}_])__(?!\s)([^_\n]+?)(?<!\s)__(?![\p{L}\p{N}_])|\*(?!\s)([^*\n]+?)(?<!\s)\*|(?<![\p{L}\p{N}_])_(?!\s)([^_\n]+?)(?<!\s)_(?![\p{L}\p{N}_])/gu;

/** `text` with its emphasis as elements; keys are prefixed with `key` (nesting). */
export function emphasis(text: string, key = 'e'): ReactNode[] {
  const nodes: ReactNode[] = [];
  let from = 0;
  for (const match of text.matchAll(EMPHASIS)) {
    const at = match.index;
    if (at > from) nodes.push(text.slice(from, at));
    const [, both, bold, underBold, italic, underItalic] = match;
    const k = `${key}${at}`;
    if (both !== undefined)
      nodes.push(
        <strong key={k}>
          <em>{both}</em>
        </strong>,
      );
    // Bold may hold italics (`**a *b* c**`).
    else if (bold !== undefined || underBold !== undefined)
      nodes.push(<strong key={k}>{emphasis(bold ?? underBold!, `${k}.`)}</strong>);
    else nodes.push(<em key={k}>{italic ?? underItalic}</em>);
    from = at + match[0].length;
  }
  if (from < text.length) nodes.push(text.slice(from));
  return nodes;
}

/** A message's text as written, line breaks kept, with its emphasis set (`emphasis`). */
export function MessageText({ text }: { text: string }) {
  return <>{emphasis(text)}</>;
}
