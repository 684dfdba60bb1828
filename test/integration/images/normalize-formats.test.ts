// R38: whatever an accepted image was (transparent, animated, CMYK, 16-bit, huge or tiny), what
// goes on is one 8-bit sRGB frame, scaled down (never up) to the maximum dimension, re-encoded:
// JPEG, or PNG (WebP for a WebP source) where it has transparency (an alpha channel that is
// opaque everywhere is none).
import { expect } from 'chai';
import sharp from 'sharp';
import { SharpImageNormalizer } from '../../../src/images/index.ts';
import { animation, cmykJpeg, phonePhoto, png16, transparentPng, transparentWebp } from '../../support/images/made-images.ts';

const MAX = 256;
const normalizer = new SharpImageNormalizer({ maxDimension: MAX, maxPixels: 40_000_000 });

describe('normalization: one sRGB frame, scaled down to the maximum dimension, re-encoded (R38)', function () {
  this.timeout(20_000);

  it('a photo is scaled down to fit the maximum on its long side, keeping its proportions, as a JPEG', async () => {
    const { original, normalized } = await normalizer.normalize(await phonePhoto({ width: 1000, height: 600 }), 'image/jpeg');
    expect(original).to.deep.equal({ width: 1000, height: 600 });
    expect([normalized.mimeType, normalized.width, normalized.height]).to.deep.equal(['image/jpeg', MAX, 154]);
    const meta = await sharp(normalized.bytes).metadata();
    expect([meta.format, meta.width, meta.height, meta.space, meta.depth]).to.deep.equal(['jpeg', MAX, 154, 'srgb', 'uchar']);
    expect(normalized.sizeBytes).to.equal(normalized.bytes.length);
  });

  it('an image already smaller than the maximum keeps its size: never scaled up', async () => {
    const { normalized } = await normalizer.normalize(await phonePhoto({ width: 120, height: 90 }), 'image/jpeg');
    expect([normalized.width, normalized.height]).to.deep.equal([120, 90]);
  });

  it('a PNG with transparency stays a PNG with its alpha channel', async () => {
    const { normalized } = await normalizer.normalize(await transparentPng(600, 300), 'image/png');
    expect([normalized.mimeType, normalized.width, normalized.height]).to.deep.equal(['image/png', MAX, 128]);
    const meta = await sharp(normalized.bytes).metadata();
    expect([meta.format, meta.hasAlpha, meta.channels, meta.space]).to.deep.equal(['png', true, 4, 'srgb']);
    const { data } = await sharp(normalized.bytes).raw().toBuffer({ resolveWithObject: true });
    expect(data[3], 'the alpha of the first pixel is kept (0.4 x 255)').to.be.within(95, 110);
  });

  it('a WebP with transparency stays a WebP with its alpha channel', async () => {
    const { normalized } = await normalizer.normalize(await transparentWebp(100, 80), 'image/webp');
    const meta = await sharp(normalized.bytes).metadata();
    expect([normalized.mimeType, meta.format, meta.hasAlpha]).to.deep.equal(['image/webp', 'webp', true]);
  });

  it('an alpha channel that is opaque everywhere is no transparency: a JPEG, from an RGBA PNG, a 16-bit one or grey with alpha', async () => {
    // (libwebp itself drops an alpha channel that is opaque everywhere, so a WebP never has one.)
    const opaque = () => sharp({ create: { width: 600, height: 300, channels: 4, background: { r: 30, g: 90, b: 160, alpha: 1 } } });
    const inputs: [string, Buffer, 'image/png'][] = [
      ['RGBA PNG', await opaque().png().toBuffer(), 'image/png'],
      ['16-bit RGBA PNG', await opaque().toColourspace('rgb16').png().toBuffer(), 'image/png'],
      ['grey + alpha PNG', await opaque().toColourspace('b-w').ensureAlpha(1).png().toBuffer(), 'image/png'],
    ];
    for (const [name, bytes, mimeType] of inputs) {
      expect((await sharp(bytes).metadata()).hasAlpha, `${name}: made with an alpha channel`).to.equal(true);
      const { normalized } = await normalizer.normalize(bytes, mimeType);
      const meta = await sharp(normalized.bytes).metadata();
      expect([normalized.mimeType, meta.format, meta.hasAlpha, meta.channels, normalized.width], name).to.deep.equal(['image/jpeg', 'jpeg', false, 3, MAX]);
    }
  });

  it('one transparent pixel is transparency: the image stays a PNG with its alpha channel', async () => {
    const pixels = Buffer.alloc(300 * 200 * 4, 200);
    pixels[3] = 0;
    const png = await sharp(pixels, { raw: { width: 300, height: 200, channels: 4 } }).png().toBuffer();
    const { normalized } = await normalizer.normalize(png, 'image/png');
    expect([normalized.mimeType, (await sharp(normalized.bytes).metadata()).hasAlpha]).to.deep.equal(['image/png', true]);
  });

  for (const format of ['gif', 'webp'] as const) {
    it(`an animated ${format.toUpperCase()} gives its first frame only, as a still image`, async () => {
      const animated = await animation(format, 3);
      expect((await sharp(animated).metadata()).pages, 'the input has 3 frames').to.equal(3);
      const { original, normalized } = await normalizer.normalize(animated, `image/${format}`);
      expect(original).to.deep.equal({ width: 48, height: 32 });
      expect([normalized.width, normalized.height]).to.deep.equal([48, 32]);
      const meta = await sharp(normalized.bytes, { animated: true }).metadata();
      expect(meta.pages ?? 1, 'one frame').to.equal(1);
      expect(meta.height).to.equal(32);
      const { data } = await sharp(normalized.bytes).raw().toBuffer({ resolveWithObject: true });
      expect([data[0]! > 180, data[1]! < 60, data[2]! < 60], 'the first (red) frame').to.deep.equal([true, true, true]);
    });
  }

  it('a CMYK JPEG comes out as an sRGB JPEG with three channels', async () => {
    const cmyk = await cmykJpeg(300, 200);
    expect((await sharp(cmyk).metadata()).space).to.equal('cmyk');
    const { normalized } = await normalizer.normalize(cmyk, 'image/jpeg');
    const meta = await sharp(normalized.bytes).metadata();
    expect([meta.space, meta.channels, normalized.width, normalized.height]).to.deep.equal(['srgb', 3, MAX, 171]);
  });

  it('a 16-bit PNG comes out with 8 bits per channel', async () => {
    const deep = await png16(200, 100);
    expect((await sharp(deep).metadata()).depth).to.equal('ushort');
    const { normalized } = await normalizer.normalize(deep, 'image/png');
    const meta = await sharp(normalized.bytes).metadata();
    expect([normalized.mimeType, meta.depth, meta.space, normalized.width]).to.deep.equal(['image/jpeg', 'uchar', 'srgb', 200]);
  });

  it('an embedded colour profile is honoured: Display P3 is converted to sRGB; an sRGB one changes nothing and is skipped', async () => {
    // A saturated red, described in Display P3: in sRGB it is a different (more saturated) value.
    const red = (profile: 'p3' | 'srgb') =>
      sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 230, g: 40, b: 30 } } }).jpeg({ quality: 95 }).withIccProfile(profile).toBuffer();
    const first = async (bytes: Buffer) => [...(await sharp(bytes).raw().toBuffer()).subarray(0, 3)];
    const close = (a: number[], b: number[]) => a.every((v, i) => Math.abs(v - (b[i] ?? 0)) <= 3);

    const p3 = await red('p3');
    const converted = await first(await sharp(p3).toColourspace('srgb').jpeg({ quality: 95 }).toBuffer());
    const ignored = await first(await sharp(p3, { ignoreIcc: true }).jpeg({ quality: 95 }).toBuffer());
    expect(close(converted, ignored), 'the test colour tells P3 from sRGB').to.equal(false);
    const fromP3 = await first((await normalizer.normalize(p3, 'image/jpeg')).normalized.bytes);
    expect(close(fromP3, converted), `P3 converted: ${fromP3} vs ${converted}`).to.equal(true);

    const srgb = await red('srgb');
    const fromSrgb = await first((await normalizer.normalize(srgb, 'image/jpeg')).normalized.bytes);
    const fullSrgb = await first(await sharp(srgb).toColourspace('srgb').jpeg({ quality: 95 }).toBuffer());
    expect(close(fromSrgb, fullSrgb), `sRGB unchanged: ${fromSrgb} vs ${fullSrgb}`).to.equal(true);
  });

  it('the maximum dimension is the operator\'s: IMAGE_MAX_DIMENSION decides the long side', async () => {
    const larger = new SharpImageNormalizer({ maxDimension: 700, maxPixels: 40_000_000 });
    const { normalized } = await larger.normalize(await phonePhoto({ width: 600, height: 1000 }), 'image/jpeg');
    expect([normalized.width, normalized.height]).to.deep.equal([420, 700]);
  });
});
