import { Controller, Header, Inject, Res } from '@nestjs/common';
import { buildOpenApiDocument } from '@toolgate/contract';
import type { FastifyReply } from 'fastify';
import { Route } from '../common/route.decorator.ts';
import { DatabaseHealth } from '../database/database-health.ts';

const openApi = buildOpenApiDocument();

/** Health probes and the API reference. */
@Controller()
export class SystemController {
  constructor(@Inject(DatabaseHealth) private readonly database: DatabaseHealth) {}

  @Route('system.healthz')
  healthz() {
    return { status: 'ok', checks: { process: 'ok' } };
  }

  /** 503 while PostgreSQL does not answer, so load balancers and probes stop sending traffic. */
  @Route('system.readyz')
  async readyz(@Res({ passthrough: true }) reply: FastifyReply) {
    const database = await this.database.check();
    if (database !== 'ok') void reply.status(503);
    return { status: database === 'ok' ? 'ok' : 'unavailable', checks: { database } };
  }

  @Route('system.openapi')
  openapi() {
    return openApi;
  }

  @Route('system.docs')
  @Header('content-type', 'text/html; charset=utf-8')
  docs() {
    return DOCS_PAGE;
  }
}

/**
 * A self-contained reference page (no CDN: this must work offline) rendered from the OpenAPI
 * document in the browser.
 */
const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Toolgate API</title>
<style>
body{font:14px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:64rem;padding:0 1rem;color:#1f2328}
h1{font-size:1.6rem}h2{margin-top:2rem;border-bottom:1px solid #d0d7de}
.op{border:1px solid #d0d7de;border-radius:6px;margin:.6rem 0;padding:.5rem .8rem}
.m{display:inline-block;min-width:4.5rem;font-weight:600}.GET{color:#0969da}.POST{color:#1a7f37}
.PUT{color:#9a6700}.DELETE{color:#cf222e}code{font-size:13px}details pre{background:#f6f8fa;padding:.5rem;overflow:auto}
</style></head><body>
<h1>Toolgate control-plane API</h1>
<p>Machine-readable: <a href="/docs/openapi.json">/docs/openapi.json</a> (OpenAPI 3.1).
Authenticate with <code>Authorization: Bearer &lt;token&gt;</code>.</p>
<div id="ops">Loading…</div>
<script>
fetch('/docs/openapi.json').then(r => r.json()).then(doc => {
  const byTag = {};
  for (const [path, ops] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(ops)) {
    (byTag[op.tags[0]] ??= []).push({ path, method: method.toUpperCase(), op });
  }
  const esc = s => String(s).replace(/[&<>]/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;'}[c]));
  document.getElementById('ops').innerHTML = Object.entries(byTag).map(([tag, ops]) =>
    '<h2>' + esc(tag) + '</h2>' + ops.map(({ path, method, op }) =>
      '<div class="op"><span class="m ' + method + '">' + method + '</span><code>' + esc(path) +
      '</code><div>' + esc(op.summary) + ' <em>' + esc(op.description) + '</em></div>' +
      (op.requestBody ? '<details><summary>Request body</summary><pre>' +
        esc(JSON.stringify(op.requestBody.content['application/json'].schema, null, 2)) + '</pre></details>' : '') +
      '</div>').join('')).join('');
});
</script></body></html>`;
