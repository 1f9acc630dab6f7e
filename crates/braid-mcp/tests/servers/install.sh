#!/usr/bin/env bash
# Installs the real MCP servers the braid-mcp integration tests run, from the lockfiles beside
# this script: @modelcontextprotocol/server-everything (npm, package-lock.json) and
# mcp-server-time (PyPI, requirements.txt, into .venv). Quick when already installed.
set -euo pipefail
cd "$(dirname "$0")"

if [ ! -x node_modules/.bin/mcp-server-everything ] || [ package-lock.json -nt node_modules/.install-stamp ]; then
    npm ci --no-audit --no-fund --loglevel=error
    touch node_modules/.install-stamp
fi

if [ ! -x .venv/bin/mcp-server-time ] || [ requirements.txt -nt .venv/.install-stamp ]; then
    python3 -m venv .venv
    # requirements.txt pins every transitive package, so nothing else may be resolved.
    .venv/bin/pip install --quiet --disable-pip-version-check --no-deps -r requirements.txt
    touch .venv/.install-stamp
fi
