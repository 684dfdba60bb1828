// The frame header (SOF) of a JPEG, read for the size of a progressive JPEG's coefficient buffer
// (R39): the sampling of each component, which sharp's metadata does not give (it calls every
// subsampled image 4:2:0 and a grey one 4:4:4).
import { expect } from 'chai';
import { jpegFrame } from '../../../src/images/image-content.ts';

/** SOI, an APP0 segment, then a progressive SOF2 with these components' sampling factors (H, V). */
function headerWith(factors: [number, number][]): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
  const components = factors.flatMap(([h, v], i) => [i + 1, (h << 4) | v, 0]);
  const length = 8 + 3 * factors.length;
  const sof = Buffer.from([0xff, 0xc2, length >> 8, length & 0xff, 8, 0x02, 0x58, 0x03, 0x20, factors.length, ...components]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.from([0xff, 0xda, 0x00, 0x02])]);
}

describe('jpegFrame: the sampling of a JPEG frame', () => {
  const cases: [string, [number, number][], number, number, number][] = [
    ['4:4:4', [[1, 1], [1, 1], [1, 1]], 3, 8, 8],
    ['4:2:2', [[2, 1], [1, 1], [1, 1]], 2, 16, 8],
    ['4:2:0', [[2, 2], [1, 1], [1, 1]], 1.5, 16, 16],
    ['4:4:0', [[1, 2], [1, 1], [1, 1]], 2, 8, 16],
    ['4:1:1', [[4, 1], [1, 1], [1, 1]], 1.5, 32, 8],
    ['grey', [[1, 1]], 1, 8, 8],
    ['CMYK 4:4:4:4', [[1, 1], [1, 1], [1, 1], [1, 1]], 4, 8, 8],
  ];
  for (const [name, factors, samples, mcuWidth, mcuHeight] of cases) {
    it(`${name}: ${samples} samples a pixel, MCU ${mcuWidth} x ${mcuHeight}`, () => {
      expect(jpegFrame(headerWith(factors))).to.deep.equal({ samplesPerPixel: samples, mcuWidth, mcuHeight });
    });
  }

  it('no frame header before the scan, or a malformed one: undefined (the caller assumes full-size components)', () => {
    expect(jpegFrame(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02]))).to.equal(undefined);
    expect(jpegFrame(headerWith([[0, 1]]))).to.equal(undefined);
    expect(jpegFrame(headerWith([[1, 1], [1, 1], [1, 1]]).subarray(0, 24))).to.equal(undefined);
  });
});
