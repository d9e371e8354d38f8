# transcript-sync worker image. Build: docker build -t transcript-sync .
# Runs `transcript-sync worker` by default; any other command works too, e.g.
#   docker run --rm --env-file .env -v tsync-data:/data transcript-sync status

# Node 22 LTS: Node 20 reached its end of life in April 2026 (package.json engines still allow
# 20.19+ for development machines; see docs/decisions/0017-node-engines-every-dependency-accepts.md).
FROM node:22-slim AS build
WORKDIR /app
# Dependencies first, so a source change does not reinstall them. Scripts are skipped here
# (`prepare` would build before the sources are copied); the build runs below.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY jobs ./jobs
RUN npm run build && npm prune --omit=dev

FROM node:22-slim
# glibc's malloc: one arena instead of one per thread, and freed blocks of 256 KiB and more handed
# back to the system, which keeps a back-fill of a million jobs within the default budget
# (docs/decisions/0005-one-memory-budget.md). The entry point, bin/transcript-sync, sets the same two (0059); the image
# sets them for whatever else starts node in it.
ENV NODE_ENV=production \
    TSYNC_DB=/data/transcripts.duckdb \
    MALLOC_ARENA_MAX=1 \
    MALLOC_MMAP_THRESHOLD_=262144
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY sql ./sql
COPY bin ./bin
# The DuckDB file lives on a volume owned by the unprivileged `node` user of the base image; a
# named volume mounted here inherits this ownership on first use.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
# /metrics and /healthz (bind 0.0.0.0 inside the container: see CMD)
EXPOSE 9464
ENTRYPOINT ["/app/bin/transcript-sync"]
CMD ["worker", "--metrics-host", "0.0.0.0", "--metrics-port", "9464"]
