/**
 * Money as the server sends it (docs/api.md "Payments"): decimal strings such as `"12.99"`
 * with an ISO currency. Amounts are shown and compared, never computed with binary floats:
 * formatting hands the string itself to Intl (ES2023 formats a numeric string exactly), and
 * comparisons go through integer minor units.
 */

/** A non-negative decimal as the server writes amounts: digits, optionally a point and digits. */
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

export function isDecimalAmount(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL.test(value);
}

/**
 * `"12.99"` in `USD` as the reader's language writes it (`$12.99`, `12,99 $`, `US$12.99`).
 * An amount or currency the browser cannot format is shown as the server wrote it.
 */
export function formatMoney(amount: string, currency: string, language: string): string {
  if (!isDecimalAmount(amount)) return `${amount} ${currency}`.trim();
  try {
    const format = new Intl.NumberFormat(language, { style: 'currency', currency });
    return format.format(amount as Intl.StringNumericLiteral);
  } catch {
    return `${amount} ${currency}`;
  }
}

/**
 * The amount in integer minor units (`"12.9"` → 1290n with 2 decimals). Throws on anything
 * that is not a decimal amount, or that has more decimals than the currency's minor unit.
 */
export function toMinorUnits(amount: string, decimals = 2): bigint {
  const match = DECIMAL.exec(amount);
  if (!match) throw new RangeError(`not a decimal amount: ${amount}`);
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) throw new RangeError(`more than ${decimals} decimals: ${amount}`);
  return BigInt(match[1]!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

/** Negative, zero or positive as `a` is below, equal to or above `b`; exact for any length. */
export function compareAmounts(a: string, b: string): number {
  const decimals = Math.max(fractionDigits(a), fractionDigits(b));
  const left = toMinorUnits(a, decimals);
  const right = toMinorUnits(b, decimals);
  return left < right ? -1 : left > right ? 1 : 0;
}

function fractionDigits(amount: string): number {
  return DECIMAL.exec(amount)?.[2]?.length ?? 0;
}
