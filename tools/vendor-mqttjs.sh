#!/bin/sh
# Vendor MQTT.js's browser bundle into the package (shotclock/web/vendor/), from the npm registry.
#   sh tools/vendor-mqttjs.sh [VERSION]     (default: the version recorded in mqtt.json)
# The pages load only files shipped with the package, so a browser on the floor network needs no
# internet access. npm checks the tarball against the registry's integrity hash; the file's own
# sha256 goes into mqtt.json, which tests/test_web_package.py checks.
set -eu
cd "$(dirname "$0")/.."
VENDOR=shotclock/web/vendor
VERSION="${1:-$(python3 -c "import json; print(json.load(open('$VENDOR/mqtt.json'))['version'])")}"
command -v npm >/dev/null || { echo "vendor-mqttjs: npm is needed (Debian: apt-get install npm)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
(cd "$TMP" && npm pack --silent "mqtt@$VERSION" >/dev/null && tar xzf "mqtt-$VERSION.tgz")
INTEGRITY=$(cd "$TMP" && npm view "mqtt@$VERSION" dist.integrity)
cp "$TMP/package/dist/mqtt.min.js" "$VENDOR/mqtt.min.js"
cp "$TMP/package/LICENSE.md" "$VENDOR/mqtt.LICENSE.md"
SHA=$(sha256sum "$VENDOR/mqtt.min.js" | cut -d' ' -f1)
cat > "$VENDOR/mqtt.json" <<JSON
{
  "package": "mqtt",
  "version": "$VERSION",
  "file": "dist/mqtt.min.js",
  "license": "MIT",
  "tarball_integrity": "$INTEGRITY",
  "sha256": "$SHA"
}
JSON
echo "vendored mqtt@$VERSION into $VENDOR (sha256 $SHA)"
