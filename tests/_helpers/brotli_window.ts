/**
 * The window a brotli stream declares in its header (RFC 7932 §9.1, WBITS): what a decoder sizes
 * its ring buffer by when the stream is not a single last meta-block.
 */
export function brotliStreamWindowBits(stream: Uint8Array): number {
  let bit = 0;
  const read = (n: number) => {
    let value = 0;
    for (let i = 0; i < n; i++, bit++) value |= ((stream[bit >> 3] >> (bit & 7)) & 1) << i;
    return value;
  };
  if (read(1) === 0) return 16;
  const n = read(3);
  if (n !== 0) return 17 + n;
  const m = read(3);
  if (m === 1) throw new Error("large-window brotli (not RFC 7932)");
  return m === 0 ? 17 : 8 + m;
}
