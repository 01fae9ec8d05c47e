# keybench's image, for Locust masters and workers under Docker Compose (`--profile load`).
# BASE_IMAGE: any Python 3.11+ image; where no registry can be reached,
# `python -m keybench.infra.images --python` builds keybench-python:local from this machine.
ARG BASE_IMAGE=python:3.11-slim
FROM ${BASE_IMAGE}
WORKDIR /keybench
COPY pyproject.toml README.md ./
COPY src src
COPY loadtests loadtests
COPY schemas schemas
RUN pip install --no-cache-dir -e .
