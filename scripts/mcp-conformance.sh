#!/usr/bin/env bash
# MCP conformance suite (server mode) against the built gateway, on loopback only: a temp SQLite database, an org
# and an `all` key made with the CLI, `./bin/gateway serve`, then every server scenario of the pinned suite. The
# scenarios that need the reference server's own tools, resources or prompts are in the baseline beside this script.
# Then the official MCP Inspector CLI (it needs Node 22, installed from the npm package `node@22` beside it in a
# cache folder) lists the tools with --strict: every operation of /openapi.json must be listed, with no warning.
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
# An object scope too, so the per-object tools are listed (they show to keys that hold one).
key="$(./bin/gateway keys create --org conformance --scopes all,objects:demo:read,objects:demo:write --name mcp-conformance --json \
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
if [ "$#" -eq 0 ] && [ "$status" -eq 0 ]; then
  inspector_home="${INSPECTOR_HOME:-$HOME/.cache/tire-gateway/inspector-2.12.0}"
  if [ ! -x "$inspector_home/node_modules/.bin/mcp-inspector" ] || [ ! -x "$inspector_home/node_modules/node/bin/node" ]; then
    npm install --prefix "$inspector_home" --no-audit --no-fund --silent node@22 @modelcontextprotocol/inspector@2.12.0 >/dev/null
  fi
  PATH="$inspector_home/node_modules/node/bin:$PATH" "$inspector_home/node_modules/.bin/mcp-inspector" --cli \
    "http://127.0.0.1:$PORT/mcp" --transport http --method tools/list --header "Authorization: Bearer $key" --strict \
    >"$work/inspector.json" 2>"$work/inspector.err" || status=$?
  node -e 'fetch(process.argv[1]).then((r) => r.text()).then((t) => require("node:fs").writeFileSync(process.argv[2], t))' \
    "http://127.0.0.1:$PORT/openapi.json" "$work/openapi.json"
  node -e '
    const fs = require("node:fs");
    const [listing, warnings, doc] = process.argv.slice(1).map((f) => fs.readFileSync(f, "utf8"));
    const listed = new Set(JSON.parse(listing).tools.map((t) => t.name));
    const documented = Object.values(JSON.parse(doc).paths).flatMap((item) => Object.values(item)).filter((op) => op.operationId !== "healthz");
    // Operations that say why they are no tool (the public connect, operator calls, HTML pages) are not expected.
    const expected = documented.filter((op) => op["x-mcp-absent"] === undefined).map((op) => op.operationId);
    const missing = expected.filter((id) => !listed.has(id));
    console.log(`inspector: ${listed.size} tools listed, ${expected.length} operations (${documented.length - expected.length} REST only), ${missing.length} missing, warnings: ${warnings.trim() ? "yes" : "none"}`);
    if (missing.length > 0) console.log(`missing: ${missing.join(", ")}`);
    if (warnings.trim()) console.log(warnings);
    process.exit(missing.length > 0 || warnings.trim() ? 1 : 0);
  ' "$work/inspector.json" "$work/inspector.err" "$work/openapi.json" || status=1
fi
if [ "$status" -ne 0 ]; then
  echo "mcp-conformance: failed; gateway log:" >&2
  cat "$work/gateway.log" >&2
fi
exit "$status"
