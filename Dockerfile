# The unstuck image: the static binary of scripts/build-static.sh on distroless static (CA
# certificates, /etc/passwd with nonroot, nothing else). Build the binary first:
#   scripts/build-static.sh && docker build -t unstuck:dev .
# scripts/docker-context-check.sh checks this file and its build context without a container engine.
FROM gcr.io/distroless/static-debian12:nonroot

ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="unstuck" \
      org.opencontainers.image.description="Finds Kubernetes pods stuck in Terminating, ContainerCreating and the like, says why with evidence and how to fix it; unstuck serve exports the findings as Prometheus metrics." \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="gcr.io/distroless/static-debian12:nonroot"

COPY --chmod=0555 target/static/unstuck /unstuck
COPY LICENSE /LICENSE

# distroless's nonroot user; the chart also sets runAsNonRoot and a read-only root filesystem.
USER 65532:65532
EXPOSE 9464
ENTRYPOINT ["/unstuck"]
CMD ["serve", "--listen=0.0.0.0:9464"]
