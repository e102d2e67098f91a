#!/usr/bin/env bash
# CI, oldest stack: the oldest supported Python (requires-python in pyproject.toml)
# with every dependency of the package and of its `test` extra pinned at its declared
# floor (`pip --constraint` of pkg==floor), then the README's test command.
# Called by .ci/run; alone: `bash .ci/floors.sh` (tests: 3.7 to 11 minutes on 2
# shared cores here, with a warm or a partly cold Numba cache, after about 2 minutes
# of installs; arguments go to pytest).
# FLOORS_PYTHON names the interpreter (default: python3.10, else pyenv's 3.10).
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${FLOORS_PYTHON:-}"
if [ -z "$PY" ]; then
    if python3.10 -c "" >/dev/null 2>&1; then
        PY=python3.10
    else
        PY="$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.10.*/bin/python 2>/dev/null | tail -n 1)"
    fi
fi
if [ -z "$PY" ]; then
    echo "floors.sh: no Python 3.10 found (set FLOORS_PYTHON)" >&2
    exit 1
fi

VENV=.ci-floors-venv
rm -rf "$VENV"
"$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip

# pkg==floor for every `pkg>=floor` of [project].dependencies and the `test` extra
# (the higher floor where both name a package).
"$VENV/bin/python" - > "$VENV/floors.txt" <<'PYEOF'
import re

text = open("pyproject.toml", encoding="utf-8").read()
sections = [re.search(r"^dependencies = \[(.*?)^\]", text, re.S | re.M).group(1),
            re.search(r"^test = \[(.*?)^\]", text, re.S | re.M).group(1)]
floors = {}
for section in sections:
    for name, version in re.findall(r'^\s*"([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?>=([^",;]+)"',
                                    section, re.M):
        key = name.lower().replace("_", "-")
        old = floors.get(key)
        parts = tuple(int(p) for p in re.findall(r"\d+", version))
        if old is None or parts > old[0]:
            floors[key] = (parts, version)
for key, (_, version) in sorted(floors.items()):
    print(f"{key}=={version}")
PYEOF
echo "floors.sh: $("$VENV/bin/python" --version) with"
cat "$VENV/floors.txt"
"$VENV/bin/python" -m pip install --quiet --constraint "$VENV/floors.txt" ".[test]"

# Its own Numba cache: the floors' Numba must not read the newest stack's.
export NUMBA_CACHE_DIR="$PWD/.ci-numba-cache-floors"
"$VENV/bin/python" -m pytest "$@"
