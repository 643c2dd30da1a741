import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unwritten, writeAllSync } from './segment.ts';

const pieces = ['abc', '', 'de', 'fghi'].map((s) => Buffer.from(s));
const text = (buffers: Buffer[]) => buffers.map((b) => b.toString()).join('|');

describe('unwritten (what a short write leaves)', () => {
  it('skips whole pieces, cuts the one the write stopped in, drops empty ones', () => {
    expect(text(unwritten(pieces, 0))).toBe('abc|de|fghi');
    expect(text(unwritten(pieces, 2))).toBe('c|de|fghi');
    expect(text(unwritten(pieces, 3))).toBe('de|fghi');
    expect(text(unwritten(pieces, 6))).toBe('ghi');
    expect(unwritten(pieces, 9)).toEqual([]);
  });
});

describe('writeAllSync', () => {
  it('writes the pieces one after the other at the position', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'segment-'));
    try {
      const path = join(dir, 'f');
      const handle = await open(path, 'w+');
      try {
        await handle.write(Buffer.from('0123456789'), 0, 10, 0);
        writeAllSync(handle.fd, pieces, 4);
        writeAllSync(handle.fd, [Buffer.from('!')], 13);
      } finally {
        await handle.close();
      }
      expect(await readFile(path, 'utf8')).toBe('0123abcdefghi!');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
