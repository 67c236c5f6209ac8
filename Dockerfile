# syntax=docker/dockerfile:1
# Build: docker build -t athar .    Run: docker run -p 8080:8080 -v athar-data:/data athar
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/athar ./cmd/athar && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/athar /usr/local/bin/athar
# The data directory belongs to the nonroot user, so a fresh named volume is writable.
COPY --from=build --chown=65532:65532 /out/data /data
ENV ATHAR_STORE=bbolt:/data/athar ATHAR_ADDR=:8080
VOLUME /data
EXPOSE 8080
USER nonroot
ENTRYPOINT ["/usr/local/bin/athar"]
CMD ["serve"]
