// R38: a decompression bomb is 422 without decoding it, and a bomb can be one of time. A
// progressive JPEG may hold any number of scans, each a few dozen bytes that make the decoder
// walk the whole frame again (libjpeg-turbo's LJT-01-003); libjpeg reads them all in one call,
// where sharp's timeout cannot reach, so a 370 KB file held a normalizer slot for 17 s. The
// scans are counted before decoding: more than any encoder writes is `too_many_scans`.
import { expect } from 'chai';
import sharp from 'sharp';
import { jpegScanCount } from '../../../src/images/image-content.ts';
import { ImageRefusal, SharpImageNormalizer } from '../../../src/images/index.ts';
import { manyScanJpeg, phonePhoto } from '../../support/images/made-images.ts';

const EOI = Buffer.from([0xff, 0xd9]);

/** A small progressive JPEG cut into everything before its last scan (`head`) and that one AC scan (`scan`). */
async function scanParts(): Promise<{ head: Buffer; scan: Buffer }> {
  const one = await manyScanJpeg(64, 64, 1);
  const scanLength = (await manyScanJpeg(64, 64, 2)).length - one.length;
  return { head: one.subarray(0, one.length - 2 - scanLength), scan: one.subarray(one.length - 2 - scanLength, one.length - 2) };
}

describe('the scans of a JPEG (R38: a bomb in time is refused before decoding)', function () {
  this.timeout(20_000);
  const normalizer = new SharpImageNormalizer({ maxDimension: 256, maxPixels: 40_000_000 });

  /** What normalizing `bytes` was refused with (the test fails if it was not). */
  async function refusalOf(bytes: Buffer): Promise<ImageRefusal> {
    try {
      await normalizer.normalize(bytes, 'image/jpeg');
    } catch (error) {
      expect(error).to.be.instanceOf(ImageRefusal);
      return error as ImageRefusal;
    }
    throw new Error('normalized, not refused');
  }

  it('counts one scan in a baseline photo (its EXIF, XMP and IPTC segments walked past), about ten in a progressive one', async () => {
    expect(jpegScanCount(await phonePhoto({ width: 320, height: 240 }), 100)).to.equal(1);
    const progressive = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#3a6' } }).jpeg({ progressive: true }).toBuffer();
    expect(jpegScanCount(progressive, 100)).to.be.within(2, 12);
    expect(jpegScanCount(await manyScanJpeg(64, 64, 40), 100)).to.equal(41);
    expect(jpegScanCount(await manyScanJpeg(64, 64, 400), 100), 'stops counting past the bound').to.equal(101);
  });

  it('scans behind a TEM marker are counted: TEM has no length in libjpeg (jdmarker.c: a parameterless marker, like RSTn)', async () => {
    // A TEM (FF 01) between scans whose next two bytes are FF DA: read as a length, they would
    // skip 65,498 bytes, which libjpeg reads as thousands of scans (a 490 KB file of them would
    // hold a decoder thread for half a minute).
    const { head, scan } = await scanParts();
    const hidden = Buffer.concat([head, Buffer.from([0xff, 0x01]), ...Array.from({ length: 300 }, () => scan), EOI]);
    expect(jpegScanCount(hidden, 100)).to.equal(101);
    expect(await refusalOf(hidden)).to.include({ kind: 'rejected', reason: 'too_many_scans' });
  });

  it('stuffed entropy-coded data (FF 00 pairs), fill bytes and restart markers are walked as data, not as markers', async () => {
    const { head, scan } = await scanParts();
    const stuffed = Buffer.alloc(4096);
    for (let i = 0; i < stuffed.length; i += 2) stuffed[i] = 0xff;
    const data = Buffer.concat([stuffed, Buffer.from([0xff, 0xff, 0xff, 0x00, 0xff, 0xd3, 0x12, 0xff, 0x01, 0x34])]);
    const file = Buffer.concat([head, data, ...Array.from({ length: 5 }, () => Buffer.concat([scan, data])), EOI]);
    // The DC scan, then the five AC scans; FF D9 ends the count.
    expect(jpegScanCount(file, 100)).to.equal(6);
    expect(jpegScanCount(Buffer.concat([file, ...Array.from({ length: 200 }, () => scan)]), 100), 'nothing after the end of image counts').to.equal(6);
  });

  it('a progressive JPEG of ordinary scans is accepted, and one of 100 scans still is', async () => {
    const progressive = await sharp({ create: { width: 1200, height: 900, channels: 3, background: '#3a6' } }).jpeg({ progressive: true }).toBuffer();
    const { normalized } = await normalizer.normalize(progressive, 'image/jpeg');
    expect(normalized.width).to.equal(256);
    const hundred = await manyScanJpeg(512, 512, 99);
    expect((await normalizer.normalize(hundred, 'image/jpeg')).normalized.mimeType).to.equal('image/jpeg');
  });

  it('one scan more than 100 is refused as too_many_scans (422 remote_evidence_image_rejected) before decoding', async () => {
    const bomb = await manyScanJpeg(2000, 2000, 500);
    expect(bomb.length, 'a small file').to.be.below(200_000);
    expect(await refusalOf(bomb)).to.include({ kind: 'rejected', reason: 'too_many_scans' });
  });
});
