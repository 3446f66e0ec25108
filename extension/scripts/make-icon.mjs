// Writes assets/icon.png: a 512×512 RGBA PNG (a filled circle on a rounded square), made
// with zlib alone so the build needs no image tools. Plasmo derives the 16–128 px icons from it.
// Run: node scripts/make-icon.mjs
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const SIZE = 512;

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

// Coverage of a pixel by a shape, 4×4 supersampled for smooth edges.
function coverage(x, y, inside) {
  let n = 0;
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) if (inside(x + (i + 0.5) / 4, y + (j + 0.5) / 4)) n++;
  return n / 16;
}
const r = 112; // corner radius of the square
const inSquare = (x, y) => {
  const cx = Math.min(Math.max(x, r), SIZE - r);
  const cy = Math.min(Math.max(y, r), SIZE - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
};
const inDot = (x, y) => (x - 256) ** 2 + (y - 256) ** 2 <= 150 ** 2;
const inRing = (x, y) => {
  const d = Math.hypot(x - 256, y - 256);
  return d >= 170 && d <= 196;
};

const raw = Buffer.alloc((SIZE * 4 + 1) * SIZE);
for (let y = 0; y < SIZE; y++) {
  const row = y * (SIZE * 4 + 1);
  raw[row] = 0; // filter: none
  for (let x = 0; x < SIZE; x++) {
    const bg = coverage(x, y, inSquare);
    const fg = Math.max(coverage(x, y, inDot), coverage(x, y, inRing));
    // background indigo #4338ca, foreground near-white #eef2ff
    const mix = (a, b) => Math.round(a * (1 - fg) + b * fg);
    const o = row + 1 + x * 4;
    raw[o] = mix(0x43, 0xee);
    raw[o + 1] = mix(0x38, 0xf2);
    raw[o + 2] = mix(0xca, 0xff);
    raw[o + 3] = Math.round(255 * bg);
  }
}

const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header[8] = 8; // bit depth
header[9] = 6; // RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', header),
  chunk('IDAT', deflateSync(raw, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
const out = new URL('../assets/icon.png', import.meta.url);
writeFileSync(out, png);
console.log(`wrote ${out.pathname} (${png.length} bytes)`);
