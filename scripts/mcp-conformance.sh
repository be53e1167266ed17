#!/usr/bin/env bash
# MCP conformance suite (server mode) against the built gateway, on loopback only: a temp SQLite database, an org
# and an `all` key made with the CLI, `./bin/gateway serve`, then every server scenario of the pinned suite. The
# scenarios that need the reference server's own tools, resources or prompts are in the baseline beside this script.
# Usage: scripts/mcp-conformance.sh [conformance server options instead of the full baseline run]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

[ -f dist/src/main.js ] || npm run --silent build

free_port() {
  node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

wait_for() {
  for _ in $(seq 1 100); do
    if node -e 'fetch(process.argv[1]).then(() => process.exit(0), () => process.exit(1))' "$1" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "mcp-conformance: $1 did not come up" >&2
  cat "$work/gateway.log" >&2 2>/dev/null || true
  return 1
}

proxy_port="$(free_port)"
# The suite sends its valid requests with the proxy's own origin: the operator lists it, as for any browser origin.
export DATABASE_URL="sqlite:$work/gateway.sqlite" LOG_LEVEL=warn HOST=127.0.0.1 ALLOWED_ORIGINS="http://127.0.0.1:$proxy_port"
export PORT="$(free_port)"
./bin/gateway orgs create conformance >/dev/null
key="$(./bin/gateway keys create --org conformance --scopes all --name mcp-conformance --json \
  | node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).key));')"

./bin/gateway serve >"$work/gateway.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$PORT/healthz"

# The suite's client sends no Authorization header, so a loopback proxy adds the key and passes everything else
# (Host and Origin included, which the DNS-rebinding scenario varies) through untouched.
GATEWAY_PORT="$PORT" PROXY_PORT="$proxy_port" MCP_KEY="$key" node --input-type=module -e '
import http from "node:http";
const { GATEWAY_PORT, PROXY_PORT, MCP_KEY } = process.env;
http.createServer((req, res) => {
  const upstream = http.request(
    { host: "127.0.0.1", port: GATEWAY_PORT, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${MCP_KEY}` } },
    (answer) => { res.writeHead(answer.statusCode ?? 502, answer.headers); answer.pipe(res); },
  );
  upstream.on("error", () => { res.writeHead(502); res.end(); });
  req.pipe(upstream);
}).listen(Number(PROXY_PORT), "127.0.0.1");
' &
pids+=($!)
wait_for "http://127.0.0.1:$proxy_port/healthz"

cd "$work"
status=0
# Arguments replace the default run, e.g. `--scenario tools-list --verbose` while investigating one scenario.
if [ "$#" -gt 0 ]; then args=("$@"); else args=(--suite all --expected-failures "$root/scripts/mcp-conformance.baseline.yml"); fi
"$root/node_modules/.bin/conformance" server --url "http://127.0.0.1:$proxy_port/mcp" "${args[@]}" || status=$?
if [ "$status" -ne 0 ]; then
  echo "mcp-conformance: failed; gateway log:" >&2
  cat "$work/gateway.log" >&2
fi
exit "$status"
