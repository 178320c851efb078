/**
 * A small stable string hash shared by sharding and lease naming. Internal.
 * @module
 */

/**
 * FNV-1a over UTF-16 code units, then a 32-bit finaliser that spreads nearby inputs. The same
 * in every runtime, so every replica computes the same value.
 */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
