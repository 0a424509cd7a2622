import { describe, expect, it } from 'vitest';
import { compareAmounts, formatMoney, isDecimalAmount, toMinorUnits } from '@/lib/money';

describe('formatMoney', () => {
  it('writes the server’s decimal string as the reader’s language does', () => {
    expect(formatMoney('12.99', 'USD', 'en')).toBe('$12.99');
    expect(formatMoney('12.90', 'USD', 'en')).toBe('$12.90');
    // Intl puts a no-break space between amount and symbol.
    expect(formatMoney('12.99', 'USD', 'de')).toBe('12,99\u00a0$');
    expect(formatMoney('239.88', 'EUR', 'fr')).toBe('239,88\u00a0€');
    expect(formatMoney('1200', 'JPY', 'ja')).toBe('￥1,200');
  });

  it('keeps every digit of amounts a binary float cannot hold', () => {
    // 0.1 + 0.2 style trouble, and more digits than a double carries.
    expect(formatMoney('0.30', 'USD', 'en')).toBe('$0.30');
    expect(formatMoney('1234567890123456.99', 'USD', 'en')).toBe('$1,234,567,890,123,456.99');
    expect(Number('1234567890123456.99').toFixed(2)).not.toBe('1234567890123456.99');
  });

  it('shows what the server wrote when it is no amount or no currency', () => {
    expect(formatMoney('free', 'USD', 'en')).toBe('free USD');
    expect(formatMoney('12.99', 'NOT-A-CURRENCY', 'en')).toBe('12.99 NOT-A-CURRENCY');
  });
});

describe('decimal amounts', () => {
  it('accepts digits with an optional fraction only', () => {
    for (const good of ['0', '12', '12.9', '12.99', '0.01']) expect(isDecimalAmount(good)).toBe(true);
    for (const bad of ['', '.5', '12.', '-1.00', '1e3', '12,99', ' 12', 12.99, null])
      expect(isDecimalAmount(bad)).toBe(false);
  });

  it('turns amounts into integer minor units exactly', () => {
    expect(toMinorUnits('12.99')).toBe(1299n);
    expect(toMinorUnits('12.9')).toBe(1290n);
    expect(toMinorUnits('12')).toBe(1200n);
    expect(toMinorUnits('0.07')).toBe(7n);
    expect(toMinorUnits('99999999999999999.99')).toBe(9999999999999999999n);
    expect(() => toMinorUnits('12.999')).toThrow(RangeError);
    expect(() => toMinorUnits('abc')).toThrow(RangeError);
  });

  it('compares amounts of any length and precision', () => {
    expect(compareAmounts('19.99', '12.99')).toBe(1);
    expect(compareAmounts('12.9', '12.90')).toBe(0);
    expect(compareAmounts('9.999', '10')).toBe(-1);
    expect(compareAmounts('10000000000000000.01', '10000000000000000.00')).toBe(1);
  });
});
