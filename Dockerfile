# A static rpcbench on a distroless base, the image `rpcbench k8s job --image` runs; rpcbench-k8s
# beside it, for `rpcbench k8s` in the image too:
#   docker build -t registry.example/rpcbench:v1 . && docker push registry.example/rpcbench:v1
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
# go.mod replaces github.com/DataDog/zstd by this folder: its go.mod is needed to download.
COPY internal/purezstd/go.mod internal/purezstd/
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/ ./cmd/rpcbench ./cmd/rpcbench-k8s

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/rpcbench /out/rpcbench-k8s /
ENTRYPOINT ["/rpcbench"]
