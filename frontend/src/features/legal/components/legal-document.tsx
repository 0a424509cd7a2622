import { Fragment, useLayoutEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { LocalizedLink } from '@/components/localized-link';
import styles from '@/features/legal/components/legal-document.module.css';
import {
  LEGAL_DOCS,
  LEGAL_NAMESPACE,
  LINK_TAGS,
  parseTagged,
  type LegalDocKey,
  type LegalText,
} from '@/features/legal/lib/legal-docs';
import { loadServedLegal } from '@/features/legal/lib/served-legal';
import { useLoad } from '@/hooks/use-load';
import { revealApp } from '@/lib/server-data';
import { CONTACT_EMAIL, CONTACT_URL, OPERATOR_NAME } from '@/lib/site';

const VALUES: Record<string, string> = { operator: OPERATOR_NAME, email: CONTACT_EMAIL };

function fill(text: string): string {
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => VALUES[name] ?? whole);
}

/** One paragraph: tagged phrases link their document, except inside a dialog (spec section 2). */
function RichText({ source, inDialog }: { source: string; inDialog: boolean }) {
  return (
    <>
      {parseTagged(fill(source)).map((part, index) => {
        if (!('tag' in part)) return <Fragment key={index}>{part.text}</Fragment>;
        if (part.tag === 'mail') {
          return (
            <a key={index} href={CONTACT_URL} className={styles.link}>
              {part.text}
            </a>
          );
        }
        const target = LINK_TAGS[part.tag];
        if (!target || inDialog) {
          return (
            <strong key={index} className={styles.mention}>
              {part.text}
            </strong>
          );
        }
        return (
          <LocalizedLink key={index} to={LEGAL_DOCS[target].path} className={styles.link}>
            {part.text}
          </LocalizedLink>
        );
      })}
    </>
  );
}

export interface LegalDocumentProps {
  docKey: LegalDocKey;
  /** Shown in a dialog (over the age gate): links do not navigate, headings step down. */
  inDialog?: boolean;
  /** The title as a heading; the app-embedded pages leave it out. */
  showTitle?: boolean;
}

/** A legal text of the `legal` namespace: title, last-modified date, binding-language note, sections. */
export function LegalDocument({ docKey, inDialog = false, showTitle = true }: LegalDocumentProps) {
  const { t, i18n } = useTranslation(LEGAL_NAMESPACE);
  // Rendered only once the texts are loaded: the server's copy of the page can go.
  useLayoutEffect(revealApp, []);
  // The texts are nested objects; the typed t() does not model returnObjects over a key union.
  const read = t as unknown as (key: string, options?: object) => unknown;
  const bundled = read(`docs.${docKey}`, { returnObjects: true, ...VALUES }) as LegalText;
  // A version published by an operator wins over the bundled one, with its own date; the
  // bundled text shows while it loads or when there is none.
  const language = i18n.resolvedLanguage ?? 'en';
  const served = useLoad(() => loadServedLegal(language), [language]).data?.[docKey];
  const text: LegalText = served ? { ...served.text, title: fill(served.text.title) } : bundled;
  const lastModified = served?.lastModified ?? LEGAL_DOCS[docKey].lastModified;
  const Title = inDialog ? 'h2' : 'h1';
  const Heading = inDialog ? 'h3' : 'h2';
  const date = lastModified
    ? new Intl.DateTimeFormat(i18n.resolvedLanguage ?? 'en', { dateStyle: 'long', timeZone: 'UTC' }).format(
        new Date(`${lastModified}T00:00:00Z`),
      )
    : null;
  return (
    <article className={`${styles.doc} ${inDialog ? styles.inDialog : ''}`} data-testid={`legal-${docKey}`}>
      {showTitle && <Title className={styles.title}>{text.title}</Title>}
      {date && <p className={styles.meta}>{read('lastModified', { date }) as string}</p>}
      <p className={styles.binding}>{read('binding') as string}</p>
      <p className={styles.intro}>
        <RichText source={text.intro} inDialog={inDialog} />
      </p>
      {text.sections.map((section) => (
        <section key={section.heading} className={styles.section}>
          <Heading className={styles.heading}>{fill(section.heading)}</Heading>
          {section.paragraphs.map((paragraph, index) => (
            <p key={index}>
              <RichText source={paragraph} inDialog={inDialog} />
            </p>
          ))}
          {section.items && (
            <ul className={styles.items}>
              {section.items.map((item, index) => (
                <li key={index}>
                  <RichText source={item} inDialog={inDialog} />
                </li>
              ))}
            </ul>
          )}
        </section>
      ))}
    </article>
  );
}
