/** The addon's shared-memory mapping (native/src/shm/), typed for the Python backend's arena. */
import { nativeModule } from './native.js';

export interface NativeShm {
  /** A MAP_SHARED mapping of the first `size` bytes of open file `fd`, unmapped when collected. */
  map(fd: number, size: number): ArrayBuffer;
  /** Frees the pages of [offset, offset + length) (punches a hole; the size stays). False where unsupported. */
  discard(fd: number, offset: number, length: number): boolean;
}

export function nativeShm(): NativeShm {
  return nativeModule<NativeShm>('shm', 'shared-memory support (native/src/shm)');
}
