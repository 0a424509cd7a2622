import { forwardRef } from 'react';
import { Link, type LinkProps } from 'react-router';
import { useLocalizedPath } from '@/hooks/use-localized-path';

/** A router link that keeps the current language prefix (`/de/...`) of the URL. */
export const LocalizedLink = forwardRef<HTMLAnchorElement, LinkProps & { to: string }>(function LocalizedLink(
  { to, ...rest },
  ref,
) {
  const localize = useLocalizedPath();
  return <Link ref={ref} to={localize(to)} {...rest} />;
});
