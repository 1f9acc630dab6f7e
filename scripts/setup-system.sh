#!/usr/bin/env bash
# Installs the system packages Braid needs on Debian, idempotently: run it as often as you like.
# `setup-system.sh run` installs what `make run` needs (Node to build the UI, Tesseract for OCR);
# `setup-system.sh test` (the default) adds what only `make test` needs (PostgreSQL, Chromium,
# fonts, Python's venv), so a first `make run` does not wait for a browser and a database.
# Needs root (or sudo) only when something is missing.
set -euo pipefail

mode=${1:-test}
case $mode in
  run | test) ;;
  *)
    echo "setup-system: unknown need \`$mode\`: expected \`run\` or \`test\`" >&2
    exit 2
    ;;
esac

# command -> Debian package that provides it.
declare -A NEEDS=(
  [node]=nodejs
  [npm]=npm
  [tesseract]=tesseract-ocr
)
if [ "$mode" = test ]; then
  NEEDS[pg_ctl]=postgresql
  NEEDS[chromium]=chromium
  NEEDS[python3]=python3
fi

missing=()
for cmd in "${!NEEDS[@]}"; do
  if ! command -v "$cmd" >/dev/null 2>&1 && ! compgen -G "/usr/lib/postgresql/*/bin/$cmd" >/dev/null; then
    missing+=("${NEEDS[$cmd]}")
  fi
done
# OCR reads an image in the language detected among those installed: Tesseract's script
# detection (`osd`) picks it, English (`eng`) and Russian (`rus`, which the tests read Cyrillic
# with) are installed. The image tests render their text with DejaVu Sans.
for lang in eng osd rus; do
  if ! compgen -G "/usr/share/tesseract-ocr/*/tessdata/$lang.traineddata" >/dev/null; then
    missing+=("tesseract-ocr-$lang")
  fi
done
if [ "$mode" = test ]; then
  if [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]; then
    missing+=(fonts-dejavu-core)
  fi
  # The MCP test servers from PyPI are installed into a virtualenv.
  if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    missing+=(python3-venv)
  fi
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup-system: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "setup-system: need root to install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup-system: done" >&2
