# syntax=docker/dockerfile:1
# Build:  docker build -t tire-gateway .
# Run:    docker run -p 8080:8080 -v gateway-data:/data tire-gateway
# test/demo/dockerfile.test.ts runs this file's npm and node commands in a clean copy of the repository.

FROM node:20-bookworm-slim AS deps
WORKDIR /app
# better-sqlite3 compiles from source against the image's own Node headers: nothing is fetched beyond the package registry.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
ENV npm_config_build_from_source=true \
    npm_config_nodedir=/usr/local
COPY package.json package-lock.json ./
# Production dependencies only; --ignore-scripts skips `prepare` (a build needing dev tools), then the one native module is built.
RUN npm ci --omit=dev --ignore-scripts && npm rebuild better-sqlite3

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# TypeScript needs no native module; `prepare` would build before the sources are copied.
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATABASE_URL=sqlite:/data/gateway.sqlite
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
# The SQLite file and its generated secret live on the volume, owned by the unprivileged user.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 8080
# Node, not curl: the slim image has no curl.
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/src/main.js", "serve"]
