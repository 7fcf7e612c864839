# accounts: multi-stage image. Build: `docker build -t accounts .`; run: see docs/DEPLOY.md and compose.yaml.
ARG NODE_IMAGE=node:26-bookworm-slim

# ---- build: every dependency (TypeScript included), compile src/ to dist/
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the `prepare` script would run tsc before the sources are copied; the build step below
# compiles them. No dependency needs its install script to build (see the runtime stage).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The web pages' browser modules (web/tsconfig.json → dist/public) and their stylesheet.
COPY web ./web
# Also writes dist/pglite-template.tar.gz, the migrated embedded database a new DATA_DIR starts from.
RUN npm run build

# ---- runtime: production dependencies, the compiled service and the migration files, as a non-root user
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/app/data
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` runs tsc, a devDependency that is not installed here. Nothing else needs its
# scripts: sharp's install script only checks for its prebuilt binary, which comes as an npm package
# (@img/sharp-linux-*), and @node-rs/argon2 has no install script (its binary is the npm package
# @node-rs/argon2-linux-*). The require() after the install proves both native modules load.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
    && npm cache clean --force \
    && node -e "require('sharp'); require('@node-rs/argon2')"
COPY --from=build /app/dist ./dist
# The web pages' stylesheet is served as written (the browser modules came with dist/public).
COPY web/static ./web/static
# Read at run time: `accounts migrate` (and MIGRATE_ON_START) apply these files.
COPY src/db/migrations ./src/db/migrations
# The image renderer (a Node process), the password hasher and the embedded database (worker threads, and its
# first start's initdb process) run from these plain-JavaScript files (they are not compiled), with the
# helpers they import.
COPY src/modules/images/render-worker.mjs ./src/modules/images/render-worker.mjs
COPY src/lib/hashing-worker.cjs ./src/lib/hashing-worker.cjs
COPY src/lib/lower-priority.cjs ./src/lib/lower-priority.cjs
COPY src/db/pglite-worker.mjs ./src/db/pglite-worker.mjs
COPY src/db/pglite-settings.mjs ./src/db/pglite-settings.mjs
COPY src/db/pglite-initdb.mjs ./src/db/pglite-initdb.mjs
# DATA_DIR (embedded PGlite and local media) must be writable by the service's user; with PostgreSQL and S3
# nothing is written there.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080 9464
# Liveness only (/healthz answers without the database); load balancers use /readyz. Node, not curl: the
# slim image has no curl.
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js", "serve"]
