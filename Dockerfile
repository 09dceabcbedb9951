# A static rpcbench on a distroless base, the image `rpcbench k8s job --image` runs:
#   docker build -t registry.example/rpcbench:v1 . && docker push registry.example/rpcbench:v1
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /rpcbench ./cmd/rpcbench

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /rpcbench /rpcbench
ENTRYPOINT ["/rpcbench"]
