# The amora server and the built React app in one image. Build context: the repository root.
#   docker build -t amora .
FROM rust:1.95-bookworm AS server
WORKDIR /src
COPY . .
# With the candle engine: the image has no llama.cpp library, and candle needs nothing else.
RUN cargo build --release --locked -p amora-server --features candle

FROM node:20-bookworm AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci
COPY frontend/ ./
RUN npm run build

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=server /src/target/release/amora /usr/local/bin/amora
COPY --from=frontend /src/frontend/dist /app/frontend/dist
COPY config /app/config
COPY schema.cql /app/schema.cql
ENV AMORA_HTTP__HOST=0.0.0.0 AMORA_HTTP__PORT=8080 AMORA_STORE__DATA_DIR=/app/data
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=6 CMD curl -fsS http://127.0.0.1:8080/readyz || exit 1
CMD ["amora"]
