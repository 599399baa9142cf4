#!/usr/bin/env bash
# Debian packages the project uses: espeak-ng (voice), chromium (browser tests), sox (audio checks),
# a CJK font (Chinese in the browser), typefaces for card indices, SVG card decks and librsvg (the reader's card art),
# mosquitto and PostgreSQL (the card room: make club, tests/club).
# Installs what is missing when run as root with apt-get; otherwise says what to install.
set -u
need=()
command -v espeak-ng >/dev/null 2>&1 || need+=(espeak-ng)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v sox >/dev/null 2>&1 || need+=(sox)
# real card art for the reader's training and `hongsi simulate --design` (vision/card_art.py)
command -v rsvg-convert >/dev/null 2>&1 || need+=(librsvg2-bin)
[ -d /usr/share/aisleriot/cards ] || need+=(gnome-cards-data)
[ -d /usr/share/carddecks ] || need+=(kdegames-card-data-kf5)
# real typefaces for the reader's procedural card indices (vision/glyphs.py, train.py --ttf-fonts)
for pkg in fonts-urw-base35 fonts-liberation2 fonts-freefont-ttf fonts-dejavu-core fonts-crosextra-carlito \
    fonts-crosextra-caladea fonts-linuxlibertine; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
# Chinese on the display and in screenshots
fc-list 2>/dev/null | grep -qi 'wenquanyi\|noto sans cjk' || need+=(fonts-wqy-microhei)
# the card room (controller/club): an MQTT broker and PostgreSQL, run as local services by make club
[ -x /usr/sbin/mosquitto ] || command -v mosquitto >/dev/null 2>&1 || need+=(mosquitto)
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || need+=(postgresql)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian packages: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null \
    || echo "warning: could not install ${need[*]}; the tests that need them will be skipped" >&2
else
  echo "note: please install ${need[*]} (sudo apt-get install ${need[*]}); tests that need them are skipped" >&2
fi
exit 0
