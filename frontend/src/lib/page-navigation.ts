/**
 * Full-page navigation: the moments the app leaves React's router on purpose (a sign-in
 * provider, a reload after signing in or out). One object, so tests can watch it instead
 * of the browser's unforgeable `window.location`.
 */
export const pageNavigation = {
  assign(url: string): void {
    window.location.assign(url);
  },
  reload(): void {
    window.location.reload();
  },
};
