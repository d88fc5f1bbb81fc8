# syntax=docker/dockerfile:1
#
# duetime as a container image: `duetime serve` (gRPC on 50051), the compiled
# calendar bundles of this repository, and the duetime command line, running as
# an unprivileged user with the SQLite ledger on a volume.
#
#   docker build -t duetime .
#   docker run -d --name duetime -p 50051:50051 -p 127.0.0.1:9464:9464 \
#       -v duetime-data:/var/lib/duetime duetime
#
# Every `duetime serve` flag is also a DUETIME_* environment variable (the flag
# wins), so `docker run -e DUETIME_LOG_FORMAT=json ...` or extra arguments after
# the image name (`... duetime serve --watch 30`) configure it. Other commands
# run the same way: `docker run --rm duetime calendars list`.
# docs/operations.md covers TLS, tokens, metrics, calendars, backups and upgrades.
# Needs BuildKit (the default builder since Docker Engine 23) for RUN --mount.

# The Python of both stages: pyproject.toml's requires-python is >= 3.11.
ARG PYTHON_VERSION=3.11

# --- builder: a wheel of duetime and of each of its dependencies -------------
FROM python:${PYTHON_VERSION}-slim AS builder
WORKDIR /src
COPY pyproject.toml README.md ./
COPY service ./service
# [postgres]: psycopg too, so the same image can use a PostgreSQL ledger.
RUN python -m pip wheel --no-cache-dir --wheel-dir /wheels '.[postgres]'

# --- runtime: only the installed wheels, the calendars and a data volume -----
FROM python:${PYTHON_VERSION}-slim AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore
# The wheels are bind-mounted from the builder, so none of them stays in a layer.
RUN --mount=type=bind,from=builder,source=/wheels,target=/wheels \
    python -m pip install --no-cache-dir --no-index --find-links /wheels 'duetime[postgres]'
# uid/gid 10001: no clash with a host's own users; the ledger volume is its own.
RUN groupadd --system --gid 10001 duetime \
    && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/duetime \
        --no-create-home --shell /usr/sbin/nologin duetime \
    && mkdir -p /var/lib/duetime /etc/duetime \
    && chown 10001:10001 /var/lib/duetime \
    && chmod 0750 /var/lib/duetime
# The bundles (sources and compiled versions), owned by root: the server only
# reads them. Replace them without rebuilding by mounting a calendars directory
# of the same layout over this path (-v /srv/duetime/calendars:/opt/duetime/calendars:ro).
COPY --chown=root:root calendars /opt/duetime/calendars

ENV DUETIME_HOST=0.0.0.0 \
    DUETIME_PORT=50051 \
    DUETIME_METRICS_PORT=9464 \
    DUETIME_DB=/var/lib/duetime/ledger.db \
    DUETIME_CALENDARS=/opt/duetime/calendars
WORKDIR /var/lib/duetime
VOLUME ["/var/lib/duetime"]
USER 10001:10001
# gRPC, Prometheus metrics, and the JSON-over-HTTP API (off unless DUETIME_HTTP_PORT=8080).
EXPOSE 50051 9464 8080
# SIGTERM: stop accepting calls, let calls in flight finish (DUETIME_GRACE), exit 0.
# Give `docker stop` more time than that: docker stop -t 30 (or --stop-timeout 30).
STOPSIGNAL SIGTERM
# Asks the gRPC health service in the container, on DUETIME_PORT: healthy while
# the server answers and its ledger accepts writes; the probe gives up (exit 1)
# before Docker's own timeout. With TLS on, set DUETIME_HEALTH_ARGS to the
# probe's flags, e.g. "--tls-ca /etc/duetime/tls/ca.pem" (and "--tls-cert FILE
# --tls-key FILE" with mutual TLS); the server's certificate must then name
# 127.0.0.1 (subjectAltName IP:127.0.0.1). See docs/operations.md.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD duetime health --server "127.0.0.1:${DUETIME_PORT:-50051}" --timeout 3 ${DUETIME_HEALTH_ARGS:-}
ENTRYPOINT ["duetime"]
CMD ["serve"]
