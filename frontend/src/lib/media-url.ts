/**
 * Which copy of an image to ask for (spec section 9, docs/api.md "Media variants"): the
 * site's own media at width 750 by default (`/media/{id}?w=750`), never resized when the
 * image is a GIF, WebP or SVG, or hosted elsewhere: those are asked for as they are.
 */

/** The widths the server makes copies at; others are 404. */
export const MEDIA_WIDTHS = [160, 320, 480, 750, 1080] as const;
export type MediaWidth = (typeof MEDIA_WIDTHS)[number];
/** Spec section 9: "Image resize default width 750". */
export const DEFAULT_MEDIA_WIDTH: MediaWidth = 750;

const NOT_RESIZED = /\.(gif|webp|svg)$/i;

/**
 * `url` with the width asked for when it is this site's media (`/media/…`, site-relative or
 * on `origin`) in a format the server resizes; otherwise `url` unchanged. `format` is the
 * content type or extension when the URL itself does not show it.
 */
export function mediaUrl(
  url: string,
  width: MediaWidth = DEFAULT_MEDIA_WIDTH,
  options: { format?: string; origin?: string } = {},
): string {
  if (!url) return url;
  const origin = options.origin ?? (typeof window === 'undefined' ? 'http://localhost' : window.location.origin);
  let parsed: URL;
  try {
    parsed = new URL(url, origin);
  } catch {
    return url;
  }
  // Hosted elsewhere (a CDN, another service), or data:/blob: URLs: as they are.
  if (parsed.origin !== new URL(origin).origin || !parsed.pathname.startsWith('/media/')) return url;
  if (NOT_RESIZED.test(parsed.pathname)) return url;
  const format = options.format?.toLowerCase();
  if (format && /(^|\/|\.)(gif|webp|svg(\+xml)?)$/.test(format)) return url;
  parsed.searchParams.set('w', String(width));
  // Keep a site-relative URL site-relative.
  const relative = !/^[a-z][a-z\d+.-]*:/i.test(url) && !url.startsWith('//');
  return relative ? `${parsed.pathname}${parsed.search}${parsed.hash}` : parsed.toString();
}
