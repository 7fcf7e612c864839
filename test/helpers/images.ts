import { crc32 } from 'node:zlib';
import sharp from 'sharp';

/** Image fixtures, made with sharp in the test run itself (no binary files in the repository). */

/** Random pixels: compress badly, so cutting the file short really cuts into the image data. */
function noise(width: number, height: number): sharp.Sharp {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7919 + (i >> 5) * 104_729) % 251;
  return sharp(pixels, { raw: { width, height, channels: 3 } });
}

export function jpegFixture(width = 640, height = 480): Promise<Buffer> {
  return noise(width, height).jpeg().toBuffer();
}

export function pngFixture(width = 320, height = 200): Promise<Buffer> {
  return noise(width, height).png().toBuffer();
}

export function gifFixture(width = 120, height = 90): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: '#3366cc' } })
    .gif()
    .toBuffer();
}

export function webpFixture(): Promise<Buffer> {
  return sharp({ create: { width: 50, height: 50, channels: 3, background: '#ffffff' } })
    .webp()
    .toBuffer();
}

/** Three frames of 80 × 60 (red, green, blue). */
export async function animatedGifFixture(): Promise<Buffer> {
  const frames = await Promise.all(
    ['#ff0000', '#00ff00', '#0000ff'].map((background) =>
      sharp({ create: { width: 80, height: 60, channels: 4, background } })
        .png()
        .toBuffer(),
    ),
  );
  return sharp(frames, { join: { animated: true } })
    .gif()
    .toBuffer();
}

export const GPS_MARKER = 'GPS-MARKER-37.5665N';
export const DESCRIPTION_MARKER = 'DESCRIPTION-MARKER-SEOUL';

/** A JPEG carrying a GPS position (and a description) in its EXIF, as a phone camera writes it. */
export function jpegWithGpsFixture(): Promise<Buffer> {
  return noise(400, 300)
    .jpeg()
    .withExif({
      IFD0: { ImageDescription: DESCRIPTION_MARKER, Make: 'TestPhone' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '37/1 33/1 5939/100',
        GPSLongitudeRef: 'E',
        GPSLongitude: '126/1 58/1 4679/100',
        GPSMapDatum: GPS_MARKER,
      },
    })
    .toBuffer();
}

export const PHP_PAYLOAD = '<?php system($_GET["cmd"]); ?>';

/** A PHP script: what someone uploads as `avatar.png` hoping it gets stored and run. */
export function phpScript(): Buffer {
  return Buffer.from(`${PHP_PAYLOAD}\n`);
}

/** A real PNG with a PHP script appended after its end: a polyglot that a name or type check lets through. */
export async function pngWithAppendedPhp(): Promise<Buffer> {
  return Buffer.concat([await pngFixture(64, 64), phpScript()]);
}

/** A PNG cut off in the middle of its pixel data. */
export async function truncatedPng(): Promise<Buffer> {
  const png = await pngFixture(400, 300);
  return png.subarray(0, Math.floor(png.length * 0.6));
}

/** Pixels from a fixed-seed xorshift generator: true noise (nothing for JPEG to compress), the same every run. */
function seededNoise(width: number, height: number): sharp.Sharp {
  const pixels = Buffer.alloc(width * height * 3);
  let state = 0x2545f491;
  for (let i = 0; i < pixels.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    pixels[i] = state & 0xff;
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } });
}

/**
 * A JPEG of noise cut off at 60%: its header is whole (the probe reads 400 × 300), but 40% of its entropy-coded
 * data is missing. Decoders that tolerate truncation fill the rest with grey; this service must refuse it.
 */
export async function truncatedNoisyJpeg(): Promise<Buffer> {
  const jpeg = await seededNoise(400, 300).jpeg().toBuffer();
  return jpeg.subarray(0, Math.floor(jpeg.length * 0.6));
}

/** A plain JPEG larger than the stored full size on both sides (a phone photo, in shape if not in detail). */
export function largeJpegFixture(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#88aa44' } })
    .jpeg()
    .toBuffer();
}

/**
 * A pixel bomb: a few hundred bytes of PNG whose header declares 50,000 × 50,000 pixels (10 GB once decoded).
 * Made by rewriting the IHDR of a tiny real PNG and fixing its CRC.
 */
export async function pixelBomb(): Promise<Buffer> {
  const png = Buffer.from(await pngFixture(8, 8));
  // Signature (8) + chunk length (4) + "IHDR" (4), then width and height.
  png.writeUInt32BE(50_000, 16);
  png.writeUInt32BE(50_000, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png;
}

/** A real JPEG padded to 11 MB: over the 10 MB file limit. */
export async function elevenMegabytes(): Promise<Buffer> {
  const jpeg = await jpegFixture(32, 32);
  return Buffer.concat([jpeg, Buffer.alloc(11 * 1024 * 1024 - jpeg.length, 0)]);
}

/**
 * A large animated GIF (default 2000 × 2000 × 9 frames, 36 MP in total: under the 40 MP limit), what made the
 * renderer spend seconds of CPU per upload. Sixteen colours in a pattern that moves per frame, so it is quick
 * to make here yet every frame must be decoded to be re-encoded.
 */
export async function largeAnimatedGif(width = 2000, height = 2000, frames = 9): Promise<Buffer> {
  const pages = await Promise.all(
    Array.from({ length: frames }, (_, frame) => {
      const pixels = Buffer.alloc(width * height * 3);
      for (let i = 0; i < pixels.length; i++) {
        const pixel = Math.floor(i / 3);
        const x = pixel % width;
        const y = Math.floor(pixel / width);
        pixels[i] = (((x >> 3) + (y >> 3) + frame + (i % 3) * 5) % 16) * 16;
      }
      return sharp(pixels, { raw: { width, height, channels: 3 } })
        .png({ compressionLevel: 1 })
        .toBuffer();
    }),
  );
  return sharp(pages, { join: { animated: true } })
    .gif({ effort: 1, colours: 16, dither: 0 })
    .toBuffer();
}
