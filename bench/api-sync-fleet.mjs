// The simulated fleet of `pnpm bench api-sync`, in a worker thread: a real fleet's long-polls
// come from other machines, so reading 1,000 answers must not share the API's event loop (the
// bench hosts the API in its main thread). Plain JavaScript, so the worker needs no TypeScript
// loader. Per round ('round' message): long-polls every gateway with the ETag it holds and
// answers { type: 'received', at } — per gateway, the wall-clock time (ms since the epoch,
// comparable across threads) at which the new bundle's headers arrived — or { type: 'failed' }.
import { parentPort, workerData } from 'node:worker_threads';

const { url, fleet } = workerData;
const now = () => performance.timeOrigin + performance.now();
const bundleUrl = (name) => `${url}/apis/toolgate.dev/v1/gateways/${name}/bundle?wait=30`;

function round() {
  return Promise.all(
    fleet.map(async (gw) => {
      const response = await fetch(bundleUrl(gw.name), {
        headers: { authorization: `Bearer ${gw.token}`, 'if-none-match': gw.etag },
      });
      const at = now();
      await response.arrayBuffer();
      if (response.status !== 200)
        throw new Error(`${gw.name}: expected a new bundle, got ${response.status}`);
      gw.etag = response.headers.get('etag') ?? '';
      return at;
    }),
  );
}

parentPort?.on('message', () => {
  round().then(
    (at) => parentPort?.postMessage({ type: 'received', at }),
    (error) => parentPort?.postMessage({ type: 'failed', message: error.message }),
  );
});
