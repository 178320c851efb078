/**
 * The UTF-8 length of a string without encoding it (a lone surrogate counts as U+FFFD, as
 * `TextEncoder` writes it).
 * @module
 */

/** Bytes `text` takes in UTF-8. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2; // 4 bytes for the pair of two code units
        i++;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}
