/** The ten decorative images of the login modal (spec section 2), emitted as static assets. */
const modules = import.meta.glob<string>('../../assets/login-art-*.svg', {
  eager: true,
  query: '?url',
  import: 'default',
});

export const LOGIN_ART: readonly string[] = Object.keys(modules)
  .sort()
  .map((key) => modules[key]!);

/** A random image index, different from `previous` when there is a choice. */
export function pickLoginArt(previous: number | null, random: () => number = Math.random): number {
  if (LOGIN_ART.length <= 1) return 0;
  let next = Math.floor(random() * LOGIN_ART.length);
  if (next === previous) next = (next + 1) % LOGIN_ART.length;
  return next;
}
