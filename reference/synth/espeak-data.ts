/**
 * espeak-ng.data, the engine's file system (24 MB: 117 dictionaries, the phoneme tables, the voices),
 * shared by every espeak thread of a process and read from disk only where espeak reads it (issue 52).
 *
 * The package's loader maps the whole file as its in-memory file system, each file a view on one
 * buffer. Read in full, those 24 MB were resident in every process with an espeak thread, while
 * espeak reads the phoneme tables and the voices (0.7 MB) and the dictionary of each language it
 * speaks (en 0.17 MB; ru alone is 8.5 MB). So the buffer is shared memory left as allocated (pages
 * never written are not resident), and the thread reads each file's bytes in on first use, marking
 * them in a second shared buffer so its sibling threads do not read them again.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** What the owning process hands each espeak thread. */
export interface EspeakDataShare {
  /** espeak-ng.data's path (for messages). */
  path: string;
  /**
   * A descriptor on the file, opened once by the owning thread and read by every espeak thread
   * (descriptors are the process's, not a thread's). A thread can be ended at any moment (a part
   * past its timeout; a terminated worker runs no `finally`), so a descriptor a thread opened itself
   * could stay open after it; and the bytes read in must all come from the file the share was made
   * from: a file replaced meanwhile (`npm ci` beside a running stack) is read as it was, through the
   * descriptor, not at its successor's offsets.
   */
  fd: number;
  /** The file's bytes, zero until read in. */
  bytes: SharedArrayBuffer;
  /** One flag per CHUNK of `bytes`: 1 once read in. */
  chunksRead: SharedArrayBuffer;
}

/** The unit read from disk: a few pages, so a small file costs one read and a dictionary a few. */
const CHUNK = 64 * 1024;

/** The share for a data file: nothing read yet. Its descriptor is held until closeEspeakDataShare. */
export function espeakDataShare(path: string): EspeakDataShare {
  const fd = openSync(path, 'r');
  try {
    const { size } = fstatSync(fd);
    return {
      path,
      fd,
      bytes: new SharedArrayBuffer(size),
      chunksRead: new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * Math.ceil(size / CHUNK)),
    };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * Closes the share's descriptor. Only once no thread reads through it any more: the number would
 * then name whatever the process opens next (a process's own share lives as long as it does).
 */
export function closeEspeakDataShare(share: EspeakDataShare): void {
  closeSync(share.fd);
}

/** Reads the chunks of bytes [start, end) that no thread has read yet. */
function readIn(share: EspeakDataShare, start: number, end: number): void {
  const bytes = new Uint8Array(share.bytes);
  const flags = new Int32Array(share.chunksRead);
  for (let chunk = Math.floor(start / CHUNK); chunk * CHUNK < end; chunk++) {
    if (Atomics.load(flags, chunk) === 1) continue;
    const from = chunk * CHUNK;
    const to = Math.min(bytes.length, from + CHUNK);
    // Two threads may read the same chunk at once: both write the same bytes, so the race is benign.
    for (let at = from; at < to; ) {
      const read = readSync(share.fd, bytes, at, to - at, at);
      if (read === 0) throw new Error(`${share.path}: ended at byte ${at} of ${bytes.length}`);
      at += read;
    }
    Atomics.store(flags, chunk, 1);
  }
}

/** The slice of Emscripten's FS this module uses (the package exports its FS on the module). */
export interface EmscriptenFs {
  readdir(path: string): string[];
  lookupPath(path: string): { node: MemfsNode };
  isDir(mode: number): boolean;
  isFile(mode: number): boolean;
}
interface MemfsNode {
  mode: number;
  contents: unknown;
}

/**
 * Makes every file under `root` whose contents are a view on the share read its bytes in when espeak
 * first touches them (MEMFS reads a file through its node's `contents`). Returns how many files.
 */
export function readFilesOnFirstUse(fs: EmscriptenFs, root: string, share: EspeakDataShare): number {
  let files = 0;
  const visit = (dir: string): void => {
    for (const name of fs.readdir(dir)) {
      if (name === '.' || name === '..') continue;
      const path = `${dir}/${name}`;
      const node = fs.lookupPath(path).node;
      if (fs.isDir(node.mode)) visit(path);
      else if (fs.isFile(node.mode)) files += lazyContents(node, share) ? 1 : 0;
    }
  };
  visit(root);
  return files;
}

function lazyContents(node: MemfsNode, share: EspeakDataShare): boolean {
  const view = node.contents;
  if (!(view instanceof Uint8Array) || view.buffer !== share.bytes) return false;
  let ready = false;
  Object.defineProperty(node, 'contents', {
    configurable: true,
    enumerable: true,
    get() {
      if (!ready) {
        readIn(share, view.byteOffset, view.byteOffset + view.byteLength);
        ready = true;
      }
      return view;
    },
    set(value: unknown) {
      // A write replaces the view (MEMFS never writes these read-only files): keep what it sets.
      Object.defineProperty(node, 'contents', {
        value,
        writable: true,
        configurable: true,
        enumerable: true,
      });
    },
  });
  return true;
}
