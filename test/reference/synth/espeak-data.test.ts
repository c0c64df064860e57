import { mkdtempSync, readdirSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  closeEspeakDataShare,
  type EmscriptenFs,
  type EspeakDataShare,
  espeakDataShare as makeShare,
  readFilesOnFirstUse,
} from '../../../reference/synth/espeak-data.ts';

const dir = mkdtempSync(join(tmpdir(), 'espeak-data-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const shares: EspeakDataShare[] = [];
afterEach(() => {
  for (const share of shares.splice(0)) closeEspeakDataShare(share);
});
/** A share closed after the test. */
function espeakDataShare(path: string): EspeakDataShare {
  const share = makeShare(path);
  shares.push(share);
  return share;
}

const CHUNK = 64 * 1024;

/** Descriptors of this process open on `path` (other test files' threads share the process). */
const openOn = (path: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false; // closed meanwhile
    }
  }).length;
const DIR_MODE = 0o040000;
const FILE_MODE = 0o100000;

/** A data file of three "files": a small one, a dictionary spanning chunks, another far behind it. */
function dataFile(): { path: string; bytes: Uint8Array; files: Record<string, [number, number]> } {
  const bytes = new Uint8Array(6 * CHUNK);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + 3) % 251 || 1; // never zero
  const path = join(dir, 'espeak-ng.data');
  writeFileSync(path, bytes);
  return {
    path,
    bytes,
    files: { phontab: [0, 100], en_dict: [CHUNK + 10, 3 * CHUNK + 5], ru_dict: [5 * CHUNK, 6 * CHUNK] },
  };
}

/** The MEMFS the package's loader makes: one node per file, its contents a view on the buffer. */
function memfs(buffer: SharedArrayBuffer, files: Record<string, [number, number]>) {
  const nodes = new Map<string, { mode: number; contents: unknown }>([
    ['/data', { mode: DIR_MODE, contents: {} }],
  ]);
  for (const [name, [start, end]] of Object.entries(files)) {
    nodes.set(`/data/${name}`, { mode: FILE_MODE, contents: new Uint8Array(buffer, start, end - start) });
  }
  const fs: EmscriptenFs = {
    readdir: (path) => [
      '.',
      '..',
      ...[...nodes.keys()].filter((p) => p.startsWith(`${path}/`)).map((p) => p.slice(path.length + 1)),
    ],
    lookupPath: (path) => ({ node: nodes.get(path)! }),
    isDir: (mode) => mode === DIR_MODE,
    isFile: (mode) => mode === FILE_MODE,
  };
  return { fs, node: (name: string) => nodes.get(`/data/${name}`)! };
}

describe('espeak-ng.data read where espeak reads it', () => {
  it('reads a file in on its first read and nothing else beyond its chunks', () => {
    const { path, bytes, files } = dataFile();
    const share = espeakDataShare(path);
    const { fs, node } = memfs(share.bytes, files);
    expect(readFilesOnFirstUse(fs, '/data', share)).toBe(3);
    const all = new Uint8Array(share.bytes);
    expect(all.every((b) => b === 0)).toBe(true); // nothing read until espeak reads

    const [start, end] = files.en_dict!;
    expect(openOn(path)).toBe(1); // the share's own, opened by the owner: none of a thread's to leak
    const view = node('en_dict').contents as Uint8Array;
    expect(openOn(path)).toBe(1);
    expect(Buffer.from(view).equals(Buffer.from(bytes.subarray(start, end)))).toBe(true);
    expect([...new Int32Array(share.chunksRead)]).toEqual([0, 1, 1, 1, 0, 0]);
    expect(all.subarray(5 * CHUNK).every((b) => b === 0)).toBe(true); // ru_dict never read
  });

  it('shares what one thread read with the others: a chunk is read once', () => {
    const { path, bytes, files } = dataFile();
    const share = espeakDataShare(path);
    const first = memfs(share.bytes, files);
    const second = memfs(share.bytes, files);
    readFilesOnFirstUse(first.fs, '/data', share);
    readFilesOnFirstUse(second.fs, '/data', share);
    void first.node('phontab').contents;
    writeFileSync(path, new Uint8Array(bytes.length)); // the second thread must not read again
    const view = second.node('phontab').contents as Uint8Array;
    expect(Buffer.from(view).equals(Buffer.from(bytes.subarray(0, 100)))).toBe(true);
  });

  it("reads a data file replaced since the share was made as it was, not at its successor's offsets", () => {
    const { path, bytes, files } = dataFile();
    const share = espeakDataShare(path);
    const { fs, node } = memfs(share.bytes, files);
    readFilesOnFirstUse(fs, '/data', share);
    writeFileSync(
      `${path}.new`,
      bytes.map((b) => 255 - b),
    );
    renameSync(`${path}.new`, path); // as a reinstall does
    const [start, end] = files.en_dict!;
    const view = node('en_dict').contents as Uint8Array;
    expect(Buffer.from(view).equals(Buffer.from(bytes.subarray(start, end)))).toBe(true);
  });

  it('closes its descriptor when closed', () => {
    const { path } = dataFile();
    const share = makeShare(path);
    expect(openOn(path)).toBe(1);
    closeEspeakDataShare(share);
    expect(openOn(path)).toBe(0);
  });

  it('leaves files alone that are not views on the share', () => {
    const { path, files } = dataFile();
    const share = espeakDataShare(path);
    const { fs, node } = memfs(new SharedArrayBuffer(6 * CHUNK), files);
    expect(readFilesOnFirstUse(fs, '/data', share)).toBe(0);
    expect(Object.getOwnPropertyDescriptor(node('phontab'), 'contents')?.get).toBeUndefined();
  });
});
