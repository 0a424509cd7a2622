/**
 * Product telemetry through GET /spm (spec section 7): page views, clicks and exposure
 * lists. A failed call is reported through /webError.
 */
import { store, userInfoAtom } from '@/app/store';
import { apiGet, getDistinctId } from '@/lib/api-client';
import { ApiCode } from '@/lib/api-types';
import { detectClient, detectSystem } from '@/lib/device';
import { errorDetails, reportError } from '@/lib/error-report';
import { APP_VERSION } from '@/lib/site';
import { storedTrackingSource } from '@/lib/tracking-source';
import { trackingEmail } from '@/lib/user';

export interface TelemetryInfo {
  category: 'pageView' | 'click' | 'exposure' | string;
  action: string;
  [extra: string]: unknown;
}

const emailHashes = new Map<string, Promise<string>>();

/** SHA-256 (hex) of the lower-cased address: telemetry never carries the address itself. */
export function hashEmail(email: string): Promise<string> {
  const normalised = email.trim().toLowerCase();
  let hash = emailHashes.get(normalised);
  if (!hash) {
    hash = crypto.subtle
      .digest('SHA-256', new TextEncoder().encode(normalised))
      .then((digest) => Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join(''));
    emailHashes.set(normalised, hash);
  }
  return hash;
}

export async function track(info: TelemetryInfo): Promise<void> {
  const user = store.get(userInfoAtom);
  const email = trackingEmail(user);
  const { source, medium } = storedTrackingSource();
  try {
    const envelope = await apiGet<boolean>(
      '/spm',
      {
        location: window.location.href,
        screen: `${window.screen.width}x${window.screen.height}`,
        version: APP_VERSION,
        userId: user?.userId ?? '',
        time: Date.now(),
        client: detectClient(),
        system: detectSystem(),
        utm_source: source,
        utm_medium: medium,
        distinctId: getDistinctId(),
        info: JSON.stringify({ ...info, email: email ? await hashEmail(email) : '' }),
      },
      { quiet: true },
    );
    // Past the per-address report budget the server says rateLimited; reporting that would only add load.
    if (!envelope.success && envelope.code !== ApiCode.rateLimited) {
      reportError({ errorType: 'spmError', message: `spm ${envelope.code}: ${envelope.msg}` });
    }
  } catch (error) {
    reportError(errorDetails('spmError', error));
  }
}

export function trackPageView(name: string): void {
  void track({ category: 'pageView', action: name });
}

export function trackClick(name: string, extra: Record<string, unknown> = {}): void {
  void track({ category: 'click', action: name, ...extra });
}

export function trackExposure(name: string, extra: Record<string, unknown>): void {
  void track({ category: 'exposure', action: name, ...extra });
}
