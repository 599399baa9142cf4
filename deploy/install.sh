#!/usr/bin/env bash
# Install hongsi on Raspberry Pi OS (Bookworm) or Debian 12: packages, a service user, the app in
# /opt/hongsi, the config in /etc/hongsi, the udev rule and the systemd unit.
#   sudo deploy/install.sh            # do it
#   deploy/install.sh --dry-run       # print every step, change nothing
set -euo pipefail
DRY=0
[ "${1:-}" = "--dry-run" ] && DRY=1
SRC="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="${HONGSI_PREFIX:-/opt/hongsi}"
run() { if [ $DRY = 1 ]; then printf '+ %s\n' "$*"; else "$@"; fi; }

if [ $DRY = 0 ] && [ "$(id -u)" != 0 ]; then echo "run as root (sudo), or with --dry-run" >&2; exit 1; fi

# Debian / Raspberry Pi OS packages. python3-lgpio: gpiozero's pin factory on a Pi 5 (lgpio);
# espeak-ng: the voice; fonts-wqy-microhei: Chinese on a display or in a dispute report the Pi draws (with
# no CJK font every Chinese word is a box); python3-picamera2: only where a Pi camera is used.
PKGS=(python3 python3-venv python3-lgpio espeak-ng sox fonts-wqy-microhei)
[ -e /proc/device-tree/model ] && grep -qi "raspberry" /proc/device-tree/model 2>/dev/null && PKGS+=(python3-picamera2)
run apt-get update
run apt-get install -y --no-install-recommends "${PKGS[@]}"

id hongsi >/dev/null 2>&1 || run useradd --system --home-dir /var/lib/hongsi --create-home --shell /usr/sbin/nologin hongsi
for g in gpio dialout video audio; do
  getent group "$g" >/dev/null 2>&1 || run groupadd --system "$g"
  run usermod -aG "$g" hongsi
done

run mkdir -p "$PREFIX" /etc/hongsi /var/lib/hongsi
run sh -c "tar -C '$SRC' --exclude=.venv --exclude=.git --exclude=artifacts -cf - . | tar -C '$PREFIX' -xf -"
# --system-site-packages lets gpiozero find Debian's lgpio and picamera2.
run python3 -m venv --system-site-packages "$PREFIX/.venv"
# numpy<2: picamera2 imports Debian's simplejpeg, built against Debian's numpy 1.x ("dtype size changed").
run "$PREFIX/.venv/bin/pip" install --quiet "$PREFIX" "numpy<2"
[ -e /etc/hongsi/config.toml ] || run install -m 0644 "$SRC/deploy/config.toml" /etc/hongsi/config.toml
run chown -R hongsi:hongsi /var/lib/hongsi
run chmod 0700 /var/lib/hongsi

# The rule names this board by its serial, so a second Pico on the Pi never takes the name. No Pico
# plugged in: the rule keeps "*" (any Pico); run the installer again with it plugged in to pin it.
SERIAL=""
for dev in ${HONGSI_TTYS:-/dev/ttyACM*}; do
  [ -e "$dev" ] || continue
  props="$(udevadm info -q property -n "$dev" 2>/dev/null || true)"
  if grep -qx 'ID_VENDOR_ID=2e8a' <<<"$props"; then
    SERIAL="$(sed -n 's/^ID_SERIAL_SHORT=\([0-9A-Za-z]*\)$/\1/p' <<<"$props")"
    [ -n "$SERIAL" ] && break
  fi
done
if [ -n "$SERIAL" ]; then
  run sh -c "sed 's/ATTRS{serial}==\"[*]\"/ATTRS{serial}==\"$SERIAL\"/' '$SRC/deploy/99-hongsi.rules' > /etc/udev/rules.d/99-hongsi.rules"
else
  echo "no Pico on USB: the udev rule matches any Pico; plug it in and run the installer again to pin its serial" >&2
  run install -m 0644 "$SRC/deploy/99-hongsi.rules" /etc/udev/rules.d/99-hongsi.rules
fi
run udevadm control --reload-rules
run udevadm trigger --subsystem-match=tty
run install -m 0644 "$SRC/deploy/hongsi.service" /etc/systemd/system/hongsi.service
run systemctl daemon-reload
run systemctl enable --now hongsi.service
echo "hongsi installed. Logs: journalctl -u hongsi -f   Operator token: sudo -u hongsi $PREFIX/.venv/bin/hongsi token"
