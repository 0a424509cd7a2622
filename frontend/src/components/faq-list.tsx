import { useId, useState } from 'react';
import { ChevronDownIcon } from '@/components/icons';
import styles from '@/components/faq-list.module.css';

/** One question: key, title, content (spec section 3 "FAQ item"). */
export interface FaqItem {
  key: string;
  title: string;
  content: string;
}

/** A titled list of questions; each toggles on its own and all start collapsed (spec section 2). */
export function FaqList({ title, items, testId }: { title: string; items: readonly FaqItem[]; testId: string }) {
  const baseId = useId();
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set());
  const toggle = (key: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  return (
    <section className={styles.section} data-testid={testId}>
      <h2 className={styles.title}>{title}</h2>
      <div className={styles.list}>
        {items.map((item, index) => {
          const expanded = open.has(item.key);
          const panelId = `${baseId}-${index}`;
          return (
            <div key={item.key} className={`${styles.item} ${expanded ? styles.open : ''}`}>
              <h3>
                <button
                  type="button"
                  className={styles.question}
                  aria-expanded={expanded}
                  aria-controls={panelId}
                  onClick={() => toggle(item.key)}
                >
                  {item.title}
                  <ChevronDownIcon size={20} className={styles.chevron} />
                </button>
              </h3>
              <div id={panelId} role="region" hidden={!expanded} className={styles.answer}>
                {item.content}
              </div>
            </div>
          );
        })}
      </div>
    </section>
  );
}
