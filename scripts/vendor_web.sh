#!/usr/bin/env bash
# Vendor the web map's JavaScript libraries from the npm registry (swm-gis publish, docs/publish.md).
#
#   Leaflet   -> swm_gis/web/leaflet/   (shipped in the wheel: the published site's map library)
#   axe-core  -> tests/data/web/        (tests only: the accessibility check injected by the tests)
#
# To update: change a version below, run `bash scripts/vendor_web.sh`, run the publish tests
# (tests/webmap/test_publish_browser.py) and commit the changed files with the new version in the message.
# Needs npm (Debian: apt-get install npm); nothing is installed globally, no CDN is ever linked.
set -euo pipefail

LEAFLET_VERSION=1.9.4
AXE_VERSION=4.14.1

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack --silent "leaflet@${LEAFLET_VERSION}" "axe-core@${AXE_VERSION}" >/dev/null
mkdir leaflet axe
tar xzf "leaflet-${LEAFLET_VERSION}.tgz" -C leaflet
tar xzf "axe-core-${AXE_VERSION}.tgz" -C axe

dest="$repo/swm_gis/web/leaflet"
rm -rf "$dest"
mkdir -p "$dest"
cp leaflet/package/dist/leaflet.js leaflet/package/dist/leaflet.css leaflet/package/LICENSE "$dest/"
echo "leaflet ${LEAFLET_VERSION} (npm registry, dist/leaflet.js, dist/leaflet.css, LICENSE)" \
    > "$dest/VERSION"

tdest="$repo/tests/data/web"
mkdir -p "$tdest"
cp axe/package/axe.min.js "$tdest/axe.min.js"
cp axe/package/LICENSE "$tdest/axe-core-LICENSE"
echo "axe-core ${AXE_VERSION} (npm registry, axe.min.js, LICENSE)" > "$tdest/axe-core-VERSION"
echo "vendored leaflet ${LEAFLET_VERSION} into $dest and axe-core ${AXE_VERSION} into $tdest"
