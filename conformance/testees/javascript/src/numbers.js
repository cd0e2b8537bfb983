"use strict";
// Numbers: the canonical float form of json-format.md §7.4, binary32
// helpers, and exact integer bounds.

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);
const F64 = new Float64Array(1);
const U8_64 = new Uint8Array(F64.buffer);

function f32BitsToNumber(bits) {
  U32[0] = bits >>> 0;
  return F32[0];
}
function numberToF32Bits(x) {
  F32[0] = x;
  return U32[0];
}

// The shortest round-trip digits of a finite, non-zero, positive binary64
// value, as {digits, exp} with value = d1.d2...dn × 10^exp. ECMAScript's
// Number::toExponential() without an argument gives exactly these digits
// (the fewest that round-trip, the nearest among them).
function shortestDigits(x) {
  const s = x.toExponential();
  const e = s.indexOf("e");
  const mant = s.slice(0, e).replace(".", "");
  const exp = parseInt(s.slice(e + 1), 10);
  return { digits: mant, exp };
}

// Canonical JSON text of a finite binary64 value (json-format.md §7.4).
function formatFloat(x) {
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  let sign = "";
  if (x < 0) { sign = "-"; x = -x; }
  const { digits, exp } = shortestDigits(x);
  const n = digits.length;
  if (exp >= -5 && exp < 16) {
    if (exp >= 0) {
      let intPart, frac;
      if (n <= exp + 1) {
        intPart = digits + "0".repeat(exp + 1 - n);
        frac = "0";
      } else {
        intPart = digits.slice(0, exp + 1);
        frac = digits.slice(exp + 1);
      }
      return sign + intPart + "." + frac;
    }
    return sign + "0." + "0".repeat(-exp - 1) + digits;
  }
  let out = sign + digits[0];
  if (n > 1) out += "." + digits.slice(1);
  out += "e" + (exp > 0 ? "+" : "-") + Math.abs(exp);
  return out;
}

const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

// Converts a JSON number token to the nearest binary64 (ties to even).
// Returns Infinity/-Infinity on overflow. Linear in the token length:
// exponents with many digits are clamped before conversion.
function parseJsonFloat(raw) {
  const m = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?)([0-9]+))?$/.exec(raw);
  if (!m) return NaN;
  const [, sign, intDigits, fracDigits = "", expSign, expDigits] = m;
  if (expDigits !== undefined && expDigits.replace(/^0+/, "").length > 9) {
    // |exponent| ≥ 10^9: the value is 0 or overflows, unless the mantissa is 0.
    const mantZero = /^0*$/.test(intDigits + fracDigits);
    if (mantZero || expSign === "-") return sign ? -0 : 0;
    return sign ? -Infinity : Infinity;
  }
  return Number(raw);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const MAX_SAFE = 9007199254740991n;
const UINT32_MAX = 4294967295n;

module.exports = {
  f32BitsToNumber, numberToF32Bits, formatFloat, shortestDigits, parseJsonFloat, JSON_NUMBER,
  INT64_MIN, INT64_MAX, UINT64_MAX, MAX_SAFE, UINT32_MAX, F64, U8_64,
};
