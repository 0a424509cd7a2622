import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { MessageText } from '@/features/chat/components/message-text';

function shown(text: string) {
  const { container } = render(
    <p>
      <MessageText text={text} />
    </p>,
  );
  return container.firstElementChild as HTMLElement;
}

const tags = (root: HTMLElement, tag: string) => [...root.querySelectorAll(tag)].map((el) => el.textContent);

describe('MessageText', () => {
  it('sets roleplay narration in italics and strong words in bold, without the asterisks', () => {
    const root = shown('*She leans closer.* That was **amazing**, _really_. __Truly__ ***wow***');
    expect(root.textContent).toBe('She leans closer. That was amazing, really. Truly wow');
    expect(tags(root, 'em')).toEqual(['She leans closer.', 'really', 'wow']);
    expect(tags(root, 'strong')).toEqual(['amazing', 'Truly', 'wow']);
  });

  it('keeps italics inside bold', () => {
    const root = shown('**so *very* glad**');
    expect(tags(root, 'strong')).toEqual(['so very glad']);
    expect(tags(root, 'strong em')).toEqual(['very']);
  });

  it('leaves unpaired marks, word-inner underscores and arithmetic as written', () => {
    const text = 'my_file_name and 2 * 3 = 6, *still typing';
    const root = shown(text);
    expect(root.textContent).toBe(text);
    expect(root.querySelectorAll('em, strong')).toHaveLength(0);
  });

  it('never reads HTML in a message, emphasised or not', () => {
    const root = shown('<img src=x onerror="alert(1)"> *<b>hi</b>* **<script>x()</script>**');
    expect(root.querySelectorAll('img, b, script')).toHaveLength(0);
    expect(tags(root, 'em')).toEqual(['<b>hi</b>']);
    expect(tags(root, 'strong')).toEqual(['<script>x()</script>']);
  });

  it('keeps line breaks as text', () => {
    expect(shown('*waves*\nHi there').textContent).toBe('waves\nHi there');
  });
});
