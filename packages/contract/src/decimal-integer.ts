import { z } from 'zod';

/** Digits only, and no leading zero: each number has one spelling, so one URL names one thing. */
const DECIMAL_DIGITS = /^(0|[1-9][0-9]*)$/;

/**
 * An integer in a path or query string, from `min` to `max`. On the wire it is decimal digits
 * and nothing else: `z.coerce.number()` (JavaScript's `Number`) would read `0x1` as 1, `1e3` as
 * 1000, ` 1` and `+1` as 1, so `revisions/0x1` would name generation 1. Leading zeros (`01`) are
 * refused too. The typed client passes numbers, which are taken as they are.
 */
export function decimalInteger(min: number, max: number) {
  return z
    .union([
      z.number(),
      z
        .string()
        .regex(
          DECIMAL_DIGITS,
          'must be a decimal integer: digits only, no sign, spaces or leading zeros',
        ),
    ])
    .transform(Number)
    .pipe(z.int().min(min).max(max));
}
