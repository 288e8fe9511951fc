#!/usr/bin/env bash
# Installs what the dashboard's browser test drives: Debian's Chromium and
# ChromeDriver (/usr/bin/chromium, /usr/bin/chromedriver). Does nothing when
# both are there. The test fails, never skips, without them.
set -euo pipefail

if [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]]; then
    exit 0
fi
as_root=()
if [[ $(id -u) -ne 0 ]]; then
    as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
packages=(chromium chromium-driver)
if ! "${as_root[@]}" apt-get install -y --no-install-recommends "${packages[@]}"; then
    "${as_root[@]}" apt-get update
    "${as_root[@]}" apt-get install -y --no-install-recommends "${packages[@]}"
fi
/usr/bin/chromium --version
/usr/bin/chromedriver --version
