/** What the `client` and `system` request headers say about this browser (API.md 1.2). */
import { MOBILE_MAX_WIDTH } from '@/lib/site';

export type ClientKind = 'mobile' | 'pc';

export function detectSystem(userAgent: string = navigator.userAgent): string {
  if (/android/i.test(userAgent)) return 'Android';
  if (/iphone|ipad|ipod/i.test(userAgent)) return 'iOS';
  if (/windows/i.test(userAgent)) return 'Windows';
  if (/mac os x|macintosh/i.test(userAgent)) return 'MacOS';
  if (/cros/i.test(userAgent)) return 'ChromeOS';
  if (/linux/i.test(userAgent)) return 'Linux';
  return 'Unknown';
}

export function detectClient(
  userAgent: string = navigator.userAgent,
  width: number = typeof window === 'undefined' ? MOBILE_MAX_WIDTH + 1 : window.innerWidth,
): ClientKind {
  if (/android|iphone|ipad|ipod|mobile/i.test(userAgent)) return 'mobile';
  return width <= MOBILE_MAX_WIDTH ? 'mobile' : 'pc';
}
