# replay-export: nightly archive / one-off export image, tagged with package.json's version:
#   docker build -t replay-export:$(node -p "require('./package.json').version") .
#   docker run --rm -e PLATFORM_API_KEY -e PLATFORM_SECRET_KEY replay-export:0.2.0 archive --out s3://bucket/prefix
# An archive-only image (no Chromium, playwright-core nor mediabunny: ~90 MB less; `video` and `view`'s MP4 downloads
# then say what is missing): docker build --build-arg VIDEO=false …
#
# Base: Node 24, an LTS line maintained until April 2028, pinned by digest (the multi-platform index of node:24-slim as
# of 2026-08-25) so that a rebuild gets the same system. To move to a newer patch release, look the digest up and
# change both FROM lines together: docker buildx imagetools inspect node:24-slim
ARG NODE_IMAGE=node:24-slim@sha256:a9f5f7c91a432850b2a8a7797adf5eadb6c733ceed61167806cee7ea7fbc29df

# Build stage: every dependency (TypeScript) and the compiled dist/.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Nothing of this package runs at install; --ignore-scripts keeps dependencies' scripts out too.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY decoders ./decoders
COPY sinks ./sinks
COPY bin ./bin
COPY samples ./samples
RUN npm run build

# Runtime dependencies, at package-lock.json's versions. The video packages are optional peers (devDependencies here):
# with VIDEO=true they are made dependencies, the lock's flags recomputed (its versions kept), then installed too.
FROM ${NODE_IMAGE} AS deps
ARG VIDEO=true
WORKDIR /app
COPY package.json package-lock.json ./
RUN if [ "$VIDEO" = true ]; then \
      node -e "const f='./package.json', p=require(f); for (const [n, v] of Object.entries(p.peerDependencies)) { p.dependencies[n] = v; delete p.devDependencies[n]; } require('fs').writeFileSync(f, JSON.stringify(p))" \
      && npm install --package-lock-only --ignore-scripts --no-audit --no-fund; \
    fi \
  && npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# Runtime stage: production dependencies, the built entries, rrweb's player bundle and the samples the sandbox serves
# (the package root is found by its package.json and samples/ folder) — what the npm package ships.
FROM ${NODE_IMAGE}
# tini as PID 1: it forwards SIGTERM to node and reaps the processes Chromium leaves (view, video).
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY package.json ./package.json
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist/bin ./dist/bin
COPY --from=build /app/dist/decoders ./dist/decoders
COPY --from=build /app/dist/sinks ./dist/sinks
COPY --from=build /app/dist/src ./dist/src
COPY vendor/rrweb ./vendor/rrweb
COPY samples/index.json ./samples/index.json
COPY samples/expected ./samples/expected
COPY samples/files ./samples/files
# The image's `node` user by number (1000:1000), so that Kubernetes can check runAsNonRoot; it owns no file here: the
# image is read-only to it. Writes go to --out and the temporary folder (TMPDIR, /tmp by default).
USER 1000:1000
ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/bin/replay-export.js"]
