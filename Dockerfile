# replay-export: nightly archive / one-off export image.
#   docker build -t replay-export .
#   docker run --rm -e PLATFORM_API_KEY -e PLATFORM_SECRET_KEY replay-export archive --out s3://bucket/prefix
# Build stage: full dependencies (TypeScript) and the compiled dist/.
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the `prepare` script compiles, which needs the sources copied below.
RUN npm ci --ignore-scripts
COPY tsconfig.json ./
COPY src ./src
COPY decoders ./decoders
COPY sinks ./sinks
COPY bin ./bin
COPY bench ./bench
COPY samples ./samples
RUN npm run build && npm prune --omit=dev --ignore-scripts

# Runtime stage: production dependencies, dist/ and samples/ (the package root is found by its package.json and
# samples/ folder; the sandbox serves the samples).
FROM node:20-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/samples ./samples
USER node
ENTRYPOINT ["node", "dist/bin/replay-export.js"]
