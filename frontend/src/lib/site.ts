/** Product identity and the business constants of product spec section 9. */

export const APP_NAME = 'Amora';
export const APP_VERSION = '0.0.101';
export const COPYRIGHT_YEAR = 2024;
/** The operator named in the footer's company line (spec section 1: a company registered in Malta). */
export const OPERATOR_NAME = 'Amora Ltd';
export const CONTACT_EMAIL = 'support@amora.chat';
export const CONTACT_URL = `mailto:${CONTACT_EMAIL}`;
export const AFFILIATE_URL = `mailto:${CONTACT_EMAIL}?subject=Affiliate`;

export const MOBILE_MAX_WIDTH = 1024;
export const HOME_TABLET_MIN_WIDTH = 640;
export const LOGIN_MODAL_NARROW_MAX_WIDTH = 480;

export const SIDE_MENU_WIDTH = 240;
export const SIDE_MENU_COLLAPSED_WIDTH = 80;

export const META_DESCRIPTION_MAX = 160;
export const NOTIFICATION_DURATION_MS = 3000;
export const PRERENDER_READY_DELAY_MS = 300;
export const ERROR_REPORT_DEBOUNCE_MS = 200;

/** Coins are integer units; the UI shows them divided by 10 (API.md section 4). */
export const COIN_DISPLAY_DIVISOR = 10;
export function displayCoins(units: number): string {
  const value = units / COIN_DISPLAY_DIVISOR;
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
