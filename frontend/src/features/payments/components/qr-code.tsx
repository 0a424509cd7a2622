import { useMemo } from 'react';
import { encode } from 'uqr';

/**
 * A QR code of `value` as an SVG of dark modules on a light quiet zone (wallet apps need
 * the contrast even in the dark theme). Encoded by `uqr` (medium error correction), drawn
 * here as one path so that nothing is injected as HTML.
 */
export function QrCode({ value, label, size = 220 }: { value: string; label: string; size?: number }) {
  const { path, modules } = useMemo(() => {
    const qr = encode(value, { ecc: 'M', border: 4 });
    let d = '';
    qr.data.forEach((row, y) =>
      row.forEach((dark, x) => {
        if (dark) d += `M${x} ${y}h1v1h-1z`;
      }),
    );
    return { path: d, modules: qr.size };
  }, [value]);
  return (
    <svg
      role="img"
      aria-label={label}
      width={size}
      height={size}
      viewBox={`0 0 ${modules} ${modules}`}
      shapeRendering="crispEdges"
      data-testid="payment-qr"
      data-modules={modules}
    >
      <rect width={modules} height={modules} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
