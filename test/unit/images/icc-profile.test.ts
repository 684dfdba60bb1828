// R38: the normalizer skips the colour conversion only for a profile that is sRGB
// already; every other profile, and any profile it cannot read, is left to libvips to apply.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import sharp from 'sharp';
import { iccDescription, isSrgbProfile } from '../../../src/images/icc-profile.ts';

async function profile(name: 'srgb' | 'p3' | 'cmyk'): Promise<Buffer> {
  const base = sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } });
  const jpeg = await (name === 'cmyk' ? base.toColourspace('cmyk') : base).jpeg().withIccProfile(name).toBuffer();
  const { icc } = await sharp(jpeg).metadata();
  if (icc === undefined) throw new Error('no profile');
  return icc;
}

describe('ICC profiles: only an sRGB one is skipped (R38)', () => {
  it('reads the description of an sRGB, a Display P3 and a CMYK profile, and calls only the first sRGB', async () => {
    const [srgb, p3, cmyk] = await Promise.all([profile('srgb'), profile('p3'), profile('cmyk')]);
    expect(iccDescription(srgb)).to.match(/^sRGB/);
    expect([isSrgbProfile(srgb), isSrgbProfile(p3), isSrgbProfile(cmyk)]).to.deep.equal([true, false, false]);
  });

  it('a profile it cannot read is not sRGB, and reading it never throws', async () => {
    const srgb = await profile('srgb');
    const broken = Buffer.from(srgb);
    broken.writeUInt32BE(0xffffff00, 132 + 4); // the first tag's offset, far outside the profile
    for (const bytes of [Buffer.alloc(0), randomBytes(64), randomBytes(4096), broken, srgb.subarray(0, 140)]) {
      expect(() => isSrgbProfile(bytes)).not.to.throw();
      expect(isSrgbProfile(bytes)).to.equal(false);
    }
  });
});
