#!/usr/bin/env bash
# Installs schemathesis (PyPI) into .tools/schemathesis for `npm run fuzz`; npm test does not need it.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION="${SCHEMATHESIS_VERSION:-4.32.5}"
[ -x .tools/schemathesis/bin/python ] || python3 -m venv .tools/schemathesis
if [ "$(.tools/schemathesis/bin/st --version 2>/dev/null)" != "st, version ${VERSION}" ]; then
  .tools/schemathesis/bin/pip install --quiet --disable-pip-version-check "schemathesis==${VERSION}" 2>&1 | grep -v '^WARNING: Location' || true
fi
.tools/schemathesis/bin/st --version
