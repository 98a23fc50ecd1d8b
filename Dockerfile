# syntax=docker/dockerfile:1
# One image for every Mainline service. The service that runs is MAINLINE_SERVICE (default: the SERVICE build
# argument, itself "gateway"), or the container's first argument:
#   docker build -t mainline .                    docker run mainline batch-runner
#   docker build --build-arg SERVICE=metrics -t mainline-metrics .
# The `mainline` CLI is in it too (one bundled file), for admin tasks inside a pod:
#   kubectl exec deploy/mainline-gateway -- sh -c 'MAINLINE_TOKEN=$DEV_API_TOKEN mainline admin org list'
ARG NODE_VERSION=20

# ---- build: install everything, compile TypeScript (tsc -b), then keep production dependencies only ----
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
ENV CI=true npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
# Manifests first, so the npm ci layer is reused until a package.json or the lock file changes.
COPY package.json package-lock.json ./
COPY proto/package.json proto/
COPY contract/package.json contract/
COPY junit/package.json junit/
COPY services/kit/package.json services/kit/
COPY services/gateway/package.json services/gateway/
COPY services/queue-coordinator/package.json services/queue-coordinator/
COPY services/batch-runner/package.json services/batch-runner/
COPY services/flaky-analytics/package.json services/flaky-analytics/
COPY services/metrics/package.json services/metrics/
COPY services/webhooks/package.json services/webhooks/
COPY tools/testing/package.json tools/testing/
COPY tools/harness/package.json tools/harness/
COPY tools/sim/package.json tools/sim/
COPY tools/cli/package.json tools/cli/
COPY tools/package.json tools/
COPY web/package.json web/
RUN npm ci
COPY . .
RUN npx tsc -b && npm run -w @mainline/web build && node tools/scripts/build-cli.mjs /out/cli/mainline.mjs
# The runtime tree: root node_modules (workspace packages are symlinks into it) and, of each runtime
# workspace, package.json and dist/src; the "default" export condition resolves to dist.
RUN npm prune --omit=dev \
 && mkdir -p /out \
 && cp -a package.json node_modules /out/ \
 && for ws in proto contract junit services/kit services/gateway services/queue-coordinator services/batch-runner \
      services/flaky-analytics services/metrics services/webhooks; do \
      mkdir -p "/out/$ws/dist" && cp -a "$ws/package.json" "/out/$ws/" && cp -a "$ws/dist/src" "/out/$ws/dist/"; \
    done \
 && mkdir -p /out/web && cp -a web/dist /out/web/ && rm -rf /out/web/dist/types \
 && cp deploy/docker/healthcheck.cjs /out/healthcheck.cjs

# ---- runtime: node, git (the batch-runner builds test branches with the git CLI), tini as PID 1 ----
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git openssh-client tini \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 mainline \
 && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/mainline --create-home --shell /usr/sbin/nologin mainline
WORKDIR /app
COPY --from=build /out/ /app/
COPY --chmod=0755 deploy/docker/entrypoint.sh /usr/local/bin/mainline-entrypoint
# The CLI talks to the gateway at MAINLINE_URL (default http://127.0.0.1:8080: the gateway's own pod).
RUN ln -s /app/cli/mainline.mjs /usr/local/bin/mainline
ARG SERVICE=gateway
ENV NODE_ENV=production \
    MAINLINE_SERVICE=${SERVICE} \
    HOME=/var/lib/mainline
USER 10001:10001
EXPOSE 8080 50051 50052 50053 50054 50055
# tini forwards SIGTERM to node (graceful shutdown) and reaps the git processes the batch-runner spawns.
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/mainline-entrypoint"]
