# Sourced by scripts/run and scripts/test: create or refresh .venv from pyproject.toml.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
python="${PYTHON:-python3}"
venv="${SOMNIUM_VENV:-$root/.venv}"
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
fi
extras="${1:-}"
stamp="$venv/.somnium-installed$extras"
want="$(cat pyproject.toml | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "Installing Somnium Desktop${extras:+ with $extras} into $venv ..." >&2
    "$venv/bin/python" -m pip install --quiet -e ".$extras"
    echo "$want" > "$stamp"
fi
export PATH="$venv/bin:$PATH"
