# svc-server image. Build: docker build -t svc-server .
# Run:   docker run -p 127.0.0.1:8128:8128 -v svc-data:/data -e SVC_SERVER_TOKEN=$(openssl rand -hex 32) svc-server
# The runner sandbox's full level needs namespaces, which Docker's default profiles refuse: add
#   --security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined
# (without them runners get the partial level; /v1/status says which).

# --- build stage: compile the native addons (isolated-vm, better-sqlite3) and dist/ ---
FROM node:22-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY tsconfig.json ./
COPY src ./src
COPY sandbox ./sandbox
COPY packages ./packages
RUN npm ci && npm prune --omit=dev

# --- runtime stage: no compilers, non-root user, state under /data ---
FROM node:22-bookworm-slim
# bubblewrap puts each runner in its own namespaces with a file view of its code only (README
# "How a run is contained"); setpriv and unshare come with util-linux.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap \
 && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 65532 svc \
 && useradd --system --uid 65532 --gid 65532 --home-dir /data --shell /usr/sbin/nologin svc \
 && install -d -o 65532 -g 65532 -m 0700 /data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/package.json ./package.json
COPY bin ./bin
COPY packages ./packages
COPY --from=build /app/sandbox/declarations ./sandbox/declarations
ENV SVC_HOME=/data \
    SVC_BIND=0.0.0.0 \
    SVC_PORT=8128 \
    TZ=Etc/UTC \
    NODE_ENV=production
VOLUME ["/data"]
USER 65532:65532
EXPOSE 8128
# --health-check reads the address from the same variables, so pass settings as
# variables or a config file rather than flags.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["/app/bin/svc-server", "--health-check"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/bin/svc-server"]
