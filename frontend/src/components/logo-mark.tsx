/** The Amora mark: two overlapping hearts in the brand gradient. */
export function LogoMark({ size = 32 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <defs>
        <linearGradient id="amora-mark" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#ff4f9a" />
          <stop offset="1" stopColor="#a855f7" />
        </linearGradient>
      </defs>
      <rect width="32" height="32" rx="9" fill="url(#amora-mark)" />
      <path
        d="M16 24.5s-7.2-4.3-8.6-8.6C6.4 12.8 8.3 10 11.3 10c1.9 0 3.3 1 4.7 2.7 1.4-1.7 2.8-2.7 4.7-2.7 3 0 4.9 2.8 3.9 5.9-1.4 4.3-8.6 8.6-8.6 8.6z"
        fill="#fff"
      />
      <circle cx="22.5" cy="9.5" r="2.2" fill="#fff" opacity="0.85" />
    </svg>
  );
}
