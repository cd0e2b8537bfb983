"use strict";
// A growable byte buffer for the writers.
class ByteWriter {
  constructor(size = 256) {
    this.buf = new Uint8Array(size);
    this.dv = new DataView(this.buf.buffer);
    this.len = 0;
  }
  ensure(k) {
    if (this.len + k <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + k) size *= 2;
    const nb = new Uint8Array(size);
    nb.set(this.buf.subarray(0, this.len));
    this.buf = nb;
    this.dv = new DataView(nb.buffer);
  }
  byte(b) {
    this.ensure(1);
    this.buf[this.len++] = b;
  }
  bytes(arr) {
    this.ensure(arr.length);
    this.buf.set(arr, this.len);
    this.len += arr.length;
  }
  u16(v) { this.ensure(2); this.dv.setUint16(this.len, v); this.len += 2; }
  u32(v) { this.ensure(4); this.dv.setUint32(this.len, v); this.len += 4; }
  u64(v) { this.ensure(8); this.dv.setBigUint64(this.len, v); this.len += 8; }
  i8(v) { this.ensure(1); this.dv.setInt8(this.len, v); this.len += 1; }
  i16(v) { this.ensure(2); this.dv.setInt16(this.len, v); this.len += 2; }
  i32(v) { this.ensure(4); this.dv.setInt32(this.len, v); this.len += 4; }
  i64(v) { this.ensure(8); this.dv.setBigInt64(this.len, v); this.len += 8; }
  f64be(v) { this.ensure(8); this.dv.setFloat64(this.len, v); this.len += 8; }
  f64le(v) { this.ensure(8); this.dv.setFloat64(this.len, v, true); this.len += 8; }
  u32le(v) { this.ensure(4); this.dv.setUint32(this.len, v, true); this.len += 4; }
  // Protobuf varint of a non-negative BigInt or Number (< 2^64).
  varint(v) {
    if (typeof v === "number" && v >= 0 && v < 0x80000000) {
      while (v >= 0x80) { this.byte((v & 0x7f) | 0x80); v >>>= 7; }
      this.byte(v);
      return;
    }
    let b = BigInt.asUintN(64, BigInt(v));
    while (b >= 0x80n) { this.byte(Number(b & 0x7fn) | 0x80); b >>= 7n; }
    this.byte(Number(b));
  }
  result() {
    return this.buf.slice(0, this.len);
  }
}

module.exports = { ByteWriter };
