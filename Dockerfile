# flow-bff — multi-stage image: build with the official Swift image, run on slim Debian with only the runtime
# libraries. Build: docker build -t flow-bff .   Run: docker run -p 8080:8080 -e FLOW_BFF_CURSOR_KEY=… flow-bff
# Configuration is config/production.json overridden by FLOW_BFF_* variables (see config/README.md).

FROM swift:6.3-bookworm AS build
WORKDIR /src
# The -dev packages the system-library targets and the static release build link against. Versions are not
# pinned: they follow the base image's Debian release, which is pinned by the image tag.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends zlib1g-dev libssl-dev libcurl4-openssl-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
COPY . .
RUN scripts/build-release /out

FROM debian:bookworm-slim
# Runtime libraries of the binary (libcurl for FoundationNetworking, zlib, libcrypto) and curl for the health
# check. Not pinned, for the same reason as above.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libcurl4 zlib1g libssl3 libstdc++6 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin flowbff
WORKDIR /app
COPY --from=build /out/flow-bff /usr/local/bin/flow-bff
COPY pages pages
COPY config config
USER 10001
ENV FLOW_BFF_SERVER_HOST=0.0.0.0 \
    FLOW_BFF_SERVER_PORT=8080
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:8080/healthz"]
# flow-bff drains in-flight requests on SIGTERM and exits 0 (server.drainSeconds, 20 s in production.json).
STOPSIGNAL SIGTERM
ENTRYPOINT ["flow-bff"]
CMD ["serve", "--config", "config/production.json"]
