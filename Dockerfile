# keybench's image, for Locust masters and workers under Docker Compose (`--profile load`).
FROM python:3.11-slim
WORKDIR /keybench
COPY pyproject.toml README.md ./
COPY loadtests loadtests
COPY schemas schemas
RUN pip install --no-cache-dir -e .
