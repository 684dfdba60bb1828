// The bench's one rounding of figures for its reports: n to `digits` decimals.
export const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;
