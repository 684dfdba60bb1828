// Which embedded ICC profiles are sRGB already (R38). Converting a 12-megapixel photo
// from its profile to sRGB costs about as much CPU as decoding it; when the profile it carries
// is sRGB (what most cameras, Android phones and editors write) the conversion changes nothing,
// so the normalizer skips it. Any other profile (Display P3, Adobe RGB, CMYK) is applied.

/** The profile's description (ICC v2 `desc` or v4 `mluc`), or undefined when it cannot be read. */
export function iccDescription(icc: Buffer): string | undefined {
  if (icc.length < 132) return undefined;
  const count = icc.readUInt32BE(128);
  for (let i = 0; i < count && 132 + (i + 1) * 12 <= icc.length; i++) {
    const entry = 132 + i * 12;
    if (icc.toString('latin1', entry, entry + 4) !== 'desc') continue;
    const offset = icc.readUInt32BE(entry + 4);
    const size = icc.readUInt32BE(entry + 8);
    const tag = icc.subarray(offset, offset + size);
    const type = tag.toString('latin1', 0, 4);
    if (type === 'desc' && tag.length >= 12) {
      const length = tag.readUInt32BE(8);
      return tag.toString('latin1', 12, 12 + length).replace(/\0+$/, '');
    }
    if (type === 'mluc' && tag.length >= 28) {
      // The first record: UTF-16BE text at its offset (from the tag's start).
      const length = tag.readUInt32BE(20);
      const start = tag.readUInt32BE(24);
      const text = tag.subarray(start, start + length);
      return Buffer.from(text).swap16().toString('utf16le').replace(/\0+$/, '');
    }
    return undefined;
  }
  return undefined;
}

/** True for an RGB profile whose description names sRGB (e.g. "sRGB IEC61966-2.1", "sRGB built-in"). */
export function isSrgbProfile(icc: Buffer): boolean {
  if (icc.length < 132 || icc.toString('latin1', 16, 20) !== 'RGB ') return false;
  try {
    return /^sRGB\b/i.test(iccDescription(icc) ?? '');
  } catch {
    return false; // a malformed profile is applied (or refused) by libvips, not guessed at here
  }
}
