#!/usr/bin/env bash
# Install tablescan on a Raspberry Pi (Raspberry Pi OS bookworm, 64-bit), as root:
#   sudo scripts/install-pi.sh            (from a checkout of the repository)
# Debian packages (python3-picamera2 among them), a venv in /opt/tablescan/venv that sees the
# system picamera2 (--system-site-packages: picamera2 and libcamera come from apt, not PyPI),
# the project installed into it, the tablescan user, /var/lib/tablescan, the systemd unit.
# Safe to run again (an upgrade re-installs the project and the unit).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
prefix=/opt/tablescan
data=/var/lib/tablescan
unit=tablescan-table@.service

[[ $(id -u) -eq 0 ]] || { echo "install-pi: run as root (sudo $0)" >&2; exit 1; }
if [[ -r /etc/os-release ]]; then
  . /etc/os-release
  [[ ${VERSION_CODENAME:-} == bookworm ]] || echo "install-pi: warning: made for bookworm, this is ${PRETTY_NAME:-unknown}" >&2
fi
[[ $(uname -m) == aarch64 ]] || echo "install-pi: warning: made for 64-bit (aarch64), this is $(uname -m)" >&2

export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends \
  python3 python3-venv python3-pip python3-picamera2 python3-libcamera libcamera-apps-lite \
  mosquitto mosquitto-clients fonts-dejavu-core fonts-wqy-microhei poppler-utils \
  ca-certificates systemd-timesyncd

id -u tablescan >/dev/null 2>&1 || useradd --system --home-dir "$data" --shell /usr/sbin/nologin tablescan
usermod -a -G video,dialout tablescan
install -d -o tablescan -g tablescan -m 0750 "$data"

install -d "$prefix"
rm -rf "$prefix/src" && cp -a "$src" "$prefix/src" && rm -rf "$prefix/src/.venv" "$prefix/src/.git"
[[ -x $prefix/venv/bin/python ]] || python3 -m venv --system-site-packages "$prefix/venv"
"$prefix/venv/bin/pip" install -q --upgrade pip
# wheels only: every runtime dependency has one for aarch64/cp311 (scripts/check-aarch64-wheels.sh)
"$prefix/venv/bin/pip" install -q --only-binary=:all: "$prefix/src" \
  || "$prefix/venv/bin/pip" install -q "$prefix/src"
"$prefix/venv/bin/python" -c "import picamera2" \
  || echo "install-pi: warning: the venv does not see picamera2 (python3-picamera2)" >&2
ln -sf "$prefix/venv/bin/tablescan" /usr/local/bin/tablescan

# the node's signing key, outside the data folder, readable by the service user alone
install -d -o root -g tablescan -m 0750 /etc/tablescan
[[ -f /etc/tablescan/node.key ]] || "$prefix/venv/bin/tablescan" key --create --key-dir /etc/tablescan
chown tablescan:tablescan /etc/tablescan/node.key && chmod 0600 /etc/tablescan/node.key
"$prefix/venv/bin/tablescan" key --key-dir /etc/tablescan  # its id: pin it at the desk

install -m 0644 "$src/scripts/$unit" "/etc/systemd/system/$unit"
systemctl daemon-reload
systemctl enable --now systemd-timesyncd >/dev/null 2>&1 || true
systemctl enable --now mosquitto >/dev/null 2>&1 || true

cat <<MSG
tablescan installed in $prefix (data: $data). Next (docs/setup.md):
  sudo -u tablescan tablescan setup --game 80-points --seats 4 -o $data/t1.toml
  tablescan markers --config $data/t1.toml -o markers.pdf
  sudo -u tablescan tablescan doctor --config $data/t1.toml --data $data
  sudo systemctl enable --now tablescan-table@t1
MSG
