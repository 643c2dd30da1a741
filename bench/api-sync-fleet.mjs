// A share of the simulated fleet of `pnpm bench api-sync`, in a worker thread: a real fleet's
// long-polls come from other machines, so reading 1,000 answers must not share the API's event
// loop (the bench hosts the API in its main thread), and the fleet is spread over several
// workers so that no one event loop's backlog is taken for the API's latency. Plain JavaScript,
// so the worker needs no TypeScript loader. node:http, not fetch: its parser is native and an
// answer's 'response' event comes as its headers are read, with no stream machinery between.
// Per round ('round' message): long-polls each of its gateways with the ETag it holds and
// answers { type: 'received', at } — per gateway, the wall-clock time (ms since the epoch,
// comparable across threads) at which the new bundle's status line and headers arrived — or
// { type: 'failed' }. A gateway counts only once its whole body has been read, its status is 200
// and its ETag is a new one, and the round only once every body decodes (it asks for gzip, as
// the gateway does) to a JSON object.
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { gunzipSync } from 'node:zlib';

const { url, fleet, gzip } = workerData;
const now = () => performance.timeOrigin + performance.now();
const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
const base = new URL(url);

function poll(gw) {
  return new Promise((resolve, reject) => {
    const request = http.get(
      {
        agent,
        host: base.hostname,
        port: base.port,
        path: `/apis/toolgate.dev/v1/gateways/${gw.name}/bundle?wait=30`,
        headers: {
          authorization: `Bearer ${gw.token}`,
          'if-none-match': gw.etag,
          // As the gateway asks (bundle-sync.ts): the answer comes gzipped, and is decoded here.
          ...(gzip ? { 'accept-encoding': 'gzip' } : {}),
        },
      },
      (response) => {
        const at = now();
        let bytes = 0;
        const chunks = [];
        response.on('data', (chunk) => {
          bytes += chunk.length;
          chunks.push(chunk);
        });
        response.on('error', reject);
        response.on('end', () => {
          const etag = response.headers.etag ?? '';
          if (response.statusCode !== 200)
            return reject(
              new Error(`${gw.name}: expected a new bundle, got ${response.statusCode}`),
            );
          if (etag === '' || etag === gw.etag)
            return reject(new Error(`${gw.name}: answered 200 without a new ETag`));
          if (bytes !== Number(response.headers['content-length']))
            return reject(new Error(`${gw.name}: body of ${bytes} bytes, not its content-length`));
          if ((response.headers['content-encoding'] === 'gzip') !== gzip)
            return reject(new Error(`${gw.name}: the bundle came in the wrong encoding`));
          gw.etag = etag;
          resolve({ at, gw, chunks });
        });
      },
    );
    request.on('error', reject);
  });
}

/**
 * Every body is decoded once the whole round is in: a real fleet decodes on its own machines, so
 * the simulated one does not take the API's cores for it while deliveries are still being timed
 * (each `at` was taken as its headers arrived, before any decoding, then as now).
 */
function decodedAll(answers) {
  for (const { gw, chunks } of answers) {
    const body = Buffer.concat(chunks);
    const text = (gzip ? gunzipSync(body) : body).toString('utf8');
    if (!text.startsWith('{') || !text.endsWith('}'))
      throw new Error(`${gw.name}: the bundle does not decode to a JSON object`);
  }
  return answers.map((answer) => answer.at);
}

parentPort?.on('message', () => {
  Promise.all(fleet.map(poll))
    .then(decodedAll)
    .then(
      (at) => parentPort?.postMessage({ type: 'received', at }),
      (error) => parentPort?.postMessage({ type: 'failed', message: error.message }),
    );
});
