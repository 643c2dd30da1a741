#!/bin/sh
# One-shot `setup` service of docker-compose.yml: registers the compose gateway and gives it an
# API token of its own (role `gateway`), written to the shared `bootstrap` volume (mode 0600)
# for the gateway container. Needs an operator token in TOOLGATE_TOKEN (the API prints one on its
# first start); does nothing once the gateway's token exists and works.
set -eu

token_file=/run/toolgate/gateway-token

if [ -s "$token_file" ] && TOOLGATE_TOKEN="$(cat "$token_file")" toolgate whoami >/dev/null 2>&1; then
  echo "setup: the gateway already has a working token; nothing to do"
  exit 0
fi

if [ -z "${TOOLGATE_TOKEN:-}" ]; then
  cat >&2 <<'MESSAGE'
setup: TOOLGATE_TOKEN is not set, so the gateway cannot be given its token yet.
  1. Read the operator token the API printed on its first start:
       docker compose logs api | grep -A 2 'First start'
  2. Run setup with it (the token stays in your shell, not in a file):
       read -rs TOOLGATE_TOKEN && export TOOLGATE_TOKEN
       docker compose up -d
See docs/operations.md ("docker compose").
MESSAGE
  exit 1
fi

toolgate apply -f /app/deploy/compose/gateway.yaml
# The example policy, once: later changes made through the console or the CLI are kept.
if ! toolgate get policy github-guardrails >/dev/null 2>&1; then
  toolgate apply -f /app/examples/policies/github-guardrails.yaml
fi
rm -f "$token_file"
toolgate tokens issue compose-gateway --description "docker compose gateway" --token-file "$token_file"
