# Sourced by scripts/run and scripts/test: `use_venv [EXTRAS]` creates or refreshes .venv from
# pyproject.toml (with EXTRAS such as "[dev]") and puts it first on PATH. It reads no argument of
# the script that sources it, so those stay the caller's (./scripts/run --version).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

use_venv() {
    local extras="${1:-}"
    local python="${PYTHON:-python3}"
    local venv="${SOMNIUM_VENV:-$root/.venv}"
    if [ ! -x "$venv/bin/python" ]; then
        "$python" -m venv "$venv"
        "$venv/bin/python" -m pip install --quiet --upgrade pip
    fi
    local stamp="$venv/.somnium-installed$extras"
    local want
    want="$(sha256sum < "$root/pyproject.toml" | cut -d' ' -f1)"
    # The [dev] install holds every other extra too.
    if [ "$(cat "$venv/.somnium-installed[dev]" 2>/dev/null)" = "$want" ]; then
        stamp="$venv/.somnium-installed[dev]"
    fi
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        echo "Installing Somnium Desktop${extras:+ with $extras} into $venv ..." >&2
        "$venv/bin/python" -m pip install --quiet -e "$root$extras"
        echo "$want" > "$stamp"
    fi
    export PATH="$venv/bin:$PATH"
}
