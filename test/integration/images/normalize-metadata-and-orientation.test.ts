// R38: a phone photo is rotated by its EXIF orientation and leaves with no metadata block at all
// (EXIF with GPS, XMP, IPTC, ICC profile, comments), read from the file's own segments.
import { expect } from 'chai';
import exifReader from 'exif-reader';
import sharp from 'sharp';
import { SharpImageNormalizer } from '../../../src/images/index.ts';
import { COMMENT_SEGMENT, phonePhoto, transparentPng, transparentWebp, withPngChunks } from '../../support/images/made-images.ts';
import { decodedMetadata, metadataBlocks } from '../../support/images/metadata-blocks.ts';

const normalizer = new SharpImageNormalizer({ maxDimension: 512, maxPixels: 40_000_000 });

/** The RGB of the pixel at (x, y). */
async function pixel(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [...data.subarray(at, at + 3)];
}

const isRed = (rgb: number[]): boolean => (rgb[0] ?? 0) > 150 && (rgb[1] ?? 255) < 90 && (rgb[2] ?? 255) < 90;

describe('normalization: EXIF orientation applied and every metadata block removed (R38)', function () {
  this.timeout(20_000);

  it('the made photo really carries EXIF with orientation 6 and GPS, XMP, IPTC, an ICC profile and a comment', async () => {
    const photo = await phonePhoto({ width: 640, height: 480, orientation: 6 });
    expect(metadataBlocks(photo)).to.include.members(['exif', 'xmp', 'iptc', 'icc', 'comment']);
    const meta = await sharp(photo).metadata();
    expect(meta.orientation).to.equal(6);
    const exif = exifReader(meta.exif!);
    expect(exif.GPSInfo?.GPSLatitude).to.deep.equal([47, 22, 30]);
    expect(exif.Image?.Make).to.equal('ExamplePhone');
  });

  it('orientation 6: the output is portrait, upright (the red corner of the stored image is now top right), with no EXIF', async () => {
    const photo = await phonePhoto({ width: 400, height: 300, orientation: 6, pixels: 'marked' });
    const { original, normalized } = await normalizer.normalize(photo, 'image/jpeg');
    expect(original).to.deep.equal({ width: 400, height: 300 });
    expect([normalized.mimeType, normalized.width, normalized.height]).to.deep.equal(['image/jpeg', 300, 400]);
    expect(isRed(await pixel(normalized.bytes, 300 - 10, 10)), 'top right is red').to.equal(true);
    expect(isRed(await pixel(normalized.bytes, 10, 10)), 'top left is not').to.equal(false);
    const meta = await sharp(normalized.bytes).metadata();
    expect(meta.orientation, 'no orientation tag left to apply twice').to.equal(undefined);
    expect([meta.width, meta.height]).to.deep.equal([300, 400]);
  });

  for (const orientation of [3, 8]) {
    it(`orientation ${orientation} is applied as well`, async () => {
      const photo = await phonePhoto({ width: 400, height: 300, orientation, pixels: 'marked' });
      const { normalized } = await normalizer.normalize(photo, 'image/jpeg');
      // 3: turned half way, the red corner is bottom right; 8: turned left, it is bottom left.
      const size = orientation === 3 ? [400, 300] : [300, 400];
      expect([normalized.width, normalized.height]).to.deep.equal(size);
      const corner = orientation === 3 ? [390, 290] : [10, 390];
      expect(isRed(await pixel(normalized.bytes, corner[0]!, corner[1]!))).to.equal(true);
    });
  }

  it('a phone photo leaves with no metadata block: no EXIF (so no GPS), XMP, IPTC, ICC profile or comment', async () => {
    const photo = await phonePhoto({ width: 1200, height: 900, orientation: 6 });
    const { normalized } = await normalizer.normalize(photo, 'image/jpeg');
    expect(metadataBlocks(normalized.bytes)).to.deep.equal([]);
    expect(await decodedMetadata(normalized.bytes)).to.deep.equal([]);
    for (const trace of ['Exif', 'GPS', 'ExamplePhone', 'Jane Tenant', 'Example Street', 'Photoshop', 'ICC_PROFILE']) {
      expect(normalized.bytes.includes(Buffer.from(trace, 'latin1')), trace).to.equal(false);
    }
    expect([normalized.width, normalized.height]).to.deep.equal([384, 512]);
  });

  it('PNG text and EXIF chunks and WebP XMP are removed as well', async () => {
    const png = withPngChunks(await transparentPng(64, 48), [{ type: 'eXIf', data: COMMENT_SEGMENT }]);
    expect(metadataBlocks(png)).to.include.members(['tEXt', 'eXIf']);
    const fromPng = await normalizer.normalize(png, 'image/png');
    expect(metadataBlocks(fromPng.normalized.bytes)).to.deep.equal([]);
    const webp = await transparentWebp(64, 48);
    expect(metadataBlocks(webp)).to.include('XMP');
    const fromWebp = await normalizer.normalize(webp, 'image/webp');
    expect(metadataBlocks(fromWebp.normalized.bytes)).to.deep.equal([]);
    expect(await decodedMetadata(fromWebp.normalized.bytes)).to.deep.equal([]);
  });
});
