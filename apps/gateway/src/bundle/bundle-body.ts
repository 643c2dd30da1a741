import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

const gunzipAsync = promisify(gunzip);

/**
 * Most bytes a gzipped bundle may decompress to: a bomb is a rejected bundle, not the gateway's
 * memory.
 */
export const MAX_BUNDLE_BYTES = 64 * 1024 * 1024;

/** A bundle answer whose body cannot be read as text: NACKed like any other garbage. */
export class UndecodableBodyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UndecodableBodyError';
  }
}

/**
 * The text of a bundle answer. The poll asks for gzip (`Accept-Encoding: gzip`: a woken fleet's
 * answers are ~4× smaller, sync-protocol.md); a gzipped body — any number of gzip members, as
 * the API sends it — is decompressed off the event loop, at most `MAX_BUNDLE_BYTES`; a coding
 * the poll did not ask for, or gzip that is cut or corrupt, is an `UndecodableBodyError`.
 */
export async function bundleText(response: Response): Promise<string> {
  const bytes = Buffer.from(await response.arrayBuffer());
  const coding = response.headers.get('content-encoding')?.trim().toLowerCase();
  if (coding === undefined || coding === '' || coding === 'identity') return bytes.toString('utf8');
  if (coding !== 'gzip')
    throw new UndecodableBodyError(`content-encoding ${coding} was not asked for`);
  // A WHATWG `fetch` (Node's own, when a client is given it) decodes the body itself and keeps
  // the header: bytes that do not open with gzip's magic number are that text already (a JSON
  // text never opens with 0x1f).
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes.toString('utf8');
  try {
    return (await gunzipAsync(bytes, { maxOutputLength: MAX_BUNDLE_BYTES })).toString('utf8');
  } catch (error) {
    throw new UndecodableBodyError(
      `its gzip encoding cannot be decoded (${(error as Error).message})`,
    );
  }
}
