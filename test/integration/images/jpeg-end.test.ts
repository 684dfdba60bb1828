// R38 `truncated`, made certain for JPEG: a file that lost only its last bytes can decode without
// libvips noticing (its decoder may never ask for them), so the normalizer also checks that an
// end-of-image marker follows the scan (jpegHasEnd). Seen in CI: one photo in many, cut by its
// last two bytes, was accepted before this check.
import { expect } from 'chai';
import sharp from 'sharp';
import { ImageRefusal, SharpImageNormalizer } from '../../../src/images/index.ts';
import { jpegHasEnd } from '../../../src/images/image-content.ts';
import { phonePhoto } from '../../support/images/made-images.ts';

/** An APP1 segment carrying a whole small JPEG, as an EXIF thumbnail does: its end marker comes before the scan. */
function withThumbnailSegment(jpeg: Buffer, thumbnail: Buffer): Buffer {
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), thumbnail]);
  const head = Buffer.from([0xff, 0xe1, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), head, payload, jpeg.subarray(2)]);
}

describe('a JPEG cut before its end-of-image marker is truncated, whatever its content (R38)', function () {
  this.timeout(30_000);
  const normalizer = new SharpImageNormalizer({ maxDimension: 256, maxPixels: 40_000_000 });

  it('jpegHasEnd: whole files yes; cut files no, even by two bytes or with a thumbnail that has its own end', async () => {
    const photo = await phonePhoto({ width: 320, height: 240 });
    const thumbnail = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#888' } }).jpeg().toBuffer();
    const withThumbnail = withThumbnailSegment(photo, thumbnail);
    expect(jpegHasEnd(photo)).to.equal(true);
    expect(jpegHasEnd(withThumbnail)).to.equal(true);
    expect(jpegHasEnd(photo.subarray(0, photo.length - 2))).to.equal(false);
    expect(jpegHasEnd(withThumbnail.subarray(0, withThumbnail.length - 2))).to.equal(false);
    expect(jpegHasEnd(photo.subarray(0, 100)), 'cut among the headers').to.equal(false);
    // A motion photo: the video follows the picture's end marker.
    expect(jpegHasEnd(Buffer.concat([photo, Buffer.from('....ftypmp42 and a video', 'latin1')]))).to.equal(true);
  });

  it('the normalizer refuses every photo of a series cut by its last two bytes, and accepts each whole', async () => {
    for (let n = 0; n < 12; n++) {
      const photo = await phonePhoto({ width: 320, height: 240 });
      const whole = await normalizer.normalize(photo, 'image/jpeg');
      expect(whole.normalized.mimeType).to.equal('image/jpeg');
      const error = await normalizer.normalize(photo.subarray(0, photo.length - 2), 'image/jpeg').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, `photo ${n}`).to.be.instanceOf(ImageRefusal);
      expect([(error as ImageRefusal).kind, (error as ImageRefusal).reason]).to.deep.equal(['rejected', 'truncated']);
    }
  });

  it('a photo followed by a video (a motion photo) is accepted', async () => {
    const photo = await phonePhoto({ width: 320, height: 240 });
    const motion = Buffer.concat([photo, Buffer.alloc(4096, 7)]);
    const { normalized } = await normalizer.normalize(motion, 'image/jpeg');
    expect([normalized.width, normalized.height]).to.deep.equal([256, 192]);
  });
});
