# Pushhub as a container (docs/home-server.md, "Docker"):
#   docker build -t pushhub .
#   docker run -d --name pushhub -p 8780:8780 -v pushhub-data:/data \
#     -e PUSHHUB_ADMIN_PASSWORD='a long password' -e PUSHHUB_PUBLIC_URL=https://push.example.net pushhub
# The hub listens on 0.0.0.0 inside the container; it refuses to do so until an admin account
# exists, so give PUSHHUB_ADMIN_PASSWORD on the first start (never baked into the image).

# ---- build: compile the hub and the renderer, keep production dependencies only -------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary fits this platform.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# The Electron binary (a devDependency for the desktop app) is never needed here.
ENV ELECTRON_SKIP_BINARY_DOWNLOAD=1
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# ---- run: node, the build output, a non-root user, data on a volume -------------------------
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PUSHHUB_HOST=0.0.0.0 \
    PUSHHUB_PORT=8780 \
    PUSHHUB_DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json ./
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
# The image's `node` user (uid 1000) owns the data directory and nothing else.
RUN mkdir -p /data && chown node:node /data && chmod 0700 /data
USER node
VOLUME ["/data"]
EXPOSE 8780
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PUSHHUB_PORT||8780)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM (docker stop) closes the hub cleanly: in-flight requests finish, the database is closed.
STOPSIGNAL SIGTERM
CMD ["node", "dist/server/cli.js", "serve"]
