# replay-export: nightly archive / one-off export image, tagged with package.json's version:
#   docker build -t replay-export:$(node -p "require('./package.json').version") .
#   docker run --rm -e PLATFORM_API_KEY -e PLATFORM_SECRET_KEY replay-export:0.2.0 archive --out s3://bucket/prefix
# Base: Node 24, an LTS line maintained until April 2028 (Node 20 left maintenance on 2026-04-30; the AWS SDK's
# releases after January 2027 need Node >= 22).
# Build stage: full dependencies (TypeScript) and the compiled dist/.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the `prepare` script compiles, which needs the sources copied below.
RUN npm ci --ignore-scripts
COPY tsconfig.json ./
COPY src ./src
COPY decoders ./decoders
COPY sinks ./sinks
COPY bin ./bin
COPY samples ./samples
# The optional packages (video: playwright-core, @sparticuz/chromium, mediabunny) stay; `--omit=optional` drops them.
RUN npm run build && npm prune --omit=dev --ignore-scripts

# Runtime stage: production dependencies, the built entries and the samples the sandbox serves (the package root is
# found by its package.json and samples/ folder) — what the npm package ships.
FROM node:24-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/bin ./dist/bin
COPY --from=build /app/dist/decoders ./dist/decoders
COPY --from=build /app/dist/sinks ./dist/sinks
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/samples/index.json ./samples/index.json
COPY --from=build /app/samples/expected ./samples/expected
COPY --from=build /app/samples/files ./samples/files
USER node
ENTRYPOINT ["node", "dist/bin/replay-export.js"]
