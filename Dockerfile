# syntax=docker/dockerfile:1
# schedlab's container image, for the Kubernetes jobs of `schedlab sweep --emit k8s`: the static
# schedlab binary and the HiGHS WebAssembly build its solver-backed policies use, on a distroless
# base (no shell, no package manager), run as the unprivileged user 65532.
#   make image                          # docker build -t schedlab:<version> .
#   docker run --rm schedlab:0.1.0 sweep demo/policies --label quick --out /work/results
# Where nothing can be pulled (no golang or distroless image), `make image` builds it with buildah
# from a context holding out/ (the static binary, highs.wasm and an empty work/, built on this
# machine) with --build-arg BUILD=prebuilt --build-arg BASE=scratch.
ARG GO_VERSION=1.26
# BUILD names the stage the binary and the wasm come from: compile (in a Go container) or prebuilt.
ARG BUILD=compile
ARG BASE=gcr.io/distroless/static-debian12:nonroot

FROM golang:${GO_VERSION}-bookworm AS compile
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Pure Go, so a static binary; -trimpath keeps this machine's paths out of it.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/bin/schedlab ./cmd/schedlab
# highs.wasm of npm highs@1.15.3, checked against its sha256 by `schedlab solver install`
# (policies/solver/README.md). A copy make setup installed in the build context is used when it
# checks out; otherwise it is fetched from the npm registry.
RUN mkdir -p /out/highs /out/work \
 && if [ -f third_party/highs/highs.wasm ]; then cp third_party/highs/highs.* /out/highs/; fi \
 && /out/bin/schedlab solver install --dest /out/highs \
 && SCHEDLAB_HIGHS_WASM=/out/highs/highs.wasm SCHEDLAB_WAZERO_CACHE=off /out/bin/schedlab solver check

FROM scratch AS prebuilt
COPY out/ /out/

FROM ${BUILD} AS build

FROM ${BASE}
COPY --from=build /out/bin/schedlab /usr/local/bin/schedlab
COPY --from=build /out/highs/ /usr/local/share/schedlab/highs/
# Sweeps run in /work (results/ by default); specs that read ../shared/data find it at
# /shared/data when the data is mounted there.
COPY --from=build --chown=65532:65532 /out/work /work
ENV SCHEDLAB_HIGHS_WASM=/usr/local/share/schedlab/highs/highs.wasm
USER 65532:65532
WORKDIR /work
ENTRYPOINT ["schedlab"]
CMD ["--help"]
