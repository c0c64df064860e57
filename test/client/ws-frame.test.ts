import { describe, expect, it } from 'vitest';
import {
  decodeAudioFrame,
  encodeAudioFrame,
  FrameError,
  frameRequestKey,
  requestKey,
} from '../../src/client/ws-frame.ts';

function frameError(bytes: Buffer): FrameError {
  try {
    decodeAudioFrame(bytes);
  } catch (error) {
    if (error instanceof FrameError) return error;
    throw error;
  }
  throw new Error('decodeAudioFrame accepted a malformed frame');
}

function rawFrame(magic: string, length: number, metadata: Buffer, audio = Buffer.alloc(0)): Buffer {
  const prefix = Buffer.alloc(8);
  prefix.write(magic, 0, 'latin1');
  prefix.writeUInt32LE(length, 4);
  return Buffer.concat([prefix, metadata, audio]);
}

describe('websocket audio frame', () => {
  it('round-trips metadata and audio, including an empty end marker', () => {
    const audio = Buffer.from('RIFF....WAVEdata');
    const frame = encodeAudioFrame({ take_id: 't1', request_id: 7, part_id: 2, chunk_id: 3 }, audio);
    expect(frame.subarray(0, 4).toString('latin1')).toBe('JSON');
    const decoded = decodeAudioFrame(frame);
    expect(decoded.metadata).toEqual({ take_id: 't1', request_id: 7, part_id: 2, chunk_id: 3 });
    expect(decoded.audio.equals(audio)).toBe(true);
    const end = decodeAudioFrame(encodeAudioFrame({ take_id: 't1', request_id: 'r', part_id: 4 }));
    expect(end.audio.length).toBe(0);
  });

  it('reports a frame shorter than the prefix', () => {
    const e = frameError(Buffer.from('JSO'));
    expect(e.kind).toBe('too-short');
    expect(e.message).toContain('3 bytes');
  });

  it('reports bad magic with the bytes found', () => {
    const e = frameError(rawFrame('RIFF', 2, Buffer.from('{}')));
    expect(e.kind).toBe('bad-magic');
    expect(e.message).toContain('"RIFF"');
    expect(e.message).toContain('52 49 46 46');
  });

  it('reports a metadata length running past the end', () => {
    const e = frameError(rawFrame('JSON', 500, Buffer.from('{"take_id":"t"}')));
    expect(e.kind).toBe('length-past-end');
    expect(e.message).toContain('500 bytes');
    expect(e.message).toContain('only 15 bytes');
  });

  it('reports metadata that is not JSON', () => {
    const bad = Buffer.from('{take_id: t}');
    const e = frameError(rawFrame('JSON', bad.length, bad));
    expect(e.kind).toBe('metadata-not-json');
    expect(e.message).toContain('{take_id: t}');
  });

  it('reports metadata that is not UTF-8', () => {
    const bad = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    expect(frameError(rawFrame('JSON', bad.length, bad)).kind).toBe('metadata-not-utf8');
  });

  it('reports metadata that breaks the AudioFrameMetadata schema, naming the field', () => {
    const bad = Buffer.from(JSON.stringify({ take_id: 't', request_id: 1, part_id: -1 }));
    const e = frameError(rawFrame('JSON', bad.length, bad));
    expect(e.kind).toBe('metadata-schema');
    expect(e.message).toContain('/part_id');
    const missing = Buffer.from(JSON.stringify({ request_id: 1, part_id: 0 }));
    expect(frameError(rawFrame('JSON', missing.length, missing)).message).toContain('take_id');
  });

  it('takes the metadata length literally: bytes after it are audio', () => {
    const meta = Buffer.from(JSON.stringify({ take_id: 't', request_id: 1, part_id: 0 }));
    const frame = rawFrame('JSON', meta.length, meta, Buffer.from([1, 2, 3]));
    expect([...decodeAudioFrame(frame).audio]).toEqual([1, 2, 3]);
  });
});

describe('the request a frame belongs to', () => {
  it('keys a request id with its JSON type: 1 and "1" are two requests', () => {
    expect(requestKey(1)).not.toBe(requestKey('1'));
    expect(requestKey('a')).toBe(requestKey('a'));
  });

  it('places a frame by its request_id, or without one by the request that named its take', () => {
    const byTake = new Map([['t1', requestKey(7)]]);
    expect(frameRequestKey({ take_id: 't2', request_id: 7, part_id: 0 }, byTake)).toBe(requestKey(7));
    expect(frameRequestKey({ take_id: 't1', request_id: null, part_id: 0 }, byTake)).toBe(requestKey(7));
    expect(frameRequestKey({ take_id: 't9', request_id: null, part_id: 0 }, byTake)).toBeUndefined();
  });
});
