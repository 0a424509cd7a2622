import { LogoMark } from '@/components/logo-mark';
import styles from '@/components/logo.module.css';
import { LocalizedLink } from '@/components/localized-link';
import { APP_NAME } from '@/lib/site';

/**
 * The logo links home. It is the page's top heading, except on legal pages, /chat/ and
 * /generateimage where it renders as a plain block (spec section 2 "Shell").
 */
export function Logo({ asHeading, compact = false, label }: { asHeading: boolean; compact?: boolean; label: string }) {
  const Tag = asHeading ? 'h1' : 'div';
  return (
    <Tag className={`${styles.logo} ${compact ? styles.compact : ''}`}>
      <LocalizedLink to="/" className={styles.link} aria-label={label}>
        <LogoMark size={compact ? 30 : 34} />
        <span className={styles.word}>{APP_NAME}</span>
      </LocalizedLink>
    </Tag>
  );
}
