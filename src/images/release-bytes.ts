// Gives the memory of a large buffer back now rather than at some later garbage collection
// (R39): an original photo is 3-12 MB of memory outside the V8 heap, and V8 collects
// such memory lazily, so dead originals would pile up (about 70 MiB of them at 4 connections of
// four photos) while the budget already counts them as gone. Detaching the ArrayBuffer
// (ArrayBuffer.prototype.transfer) frees its backing store at once.
const SMALLEST = 64 * 1024;

/**
 * Frees `bytes` when it is the only view of an ArrayBuffer of its own; any other buffer (a slice
 * of Node's shared pool, a view of a larger one, a small one) is left to the garbage collector.
 * The caller must be the bytes' last user: afterwards `bytes.length` is 0.
 */
export function releaseBytes(bytes: Buffer): void {
  const whole = bytes.buffer;
  if (!(whole instanceof ArrayBuffer) || whole.detached || whole.byteLength < SMALLEST) return;
  if (bytes.byteOffset !== 0 || bytes.byteLength !== whole.byteLength) return;
  try {
    whole.transfer(0);
  } catch {
    // Not detachable (memory owned by a native module): the garbage collector frees it.
  }
}
