/** The addon's shared-memory mapping (native/src/shm/), typed for the Python backend's arena. */
import { GebeError } from '../../errors.js';
import { loadNativeAddon } from './native.js';

export interface NativeShm {
  /** A MAP_SHARED mapping of the first `size` bytes of open file `fd`, unmapped when collected. */
  map(fd: number, size: number): ArrayBuffer;
  /** Frees the pages of [offset, offset + length) (punches a hole; the size stays). False where unsupported. */
  discard(fd: number, offset: number, length: number): boolean;
}

export function nativeShm(): NativeShm {
  const shm = loadNativeAddon().shm as NativeShm | undefined;
  if (!shm) {
    throw new GebeError('the native addon was built without shared-memory support (native/src/shm)', {
      hint: 'rebuild it from this checkout with `npm run build:native`',
    });
  }
  return shm;
}
