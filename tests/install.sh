#!/usr/bin/env bash
# `meson install` installs like a plugin: the plugin in GStreamer's plugin
# directory, the engine and the glue in a private directory, the public
# meta header, and nothing else (no library among the system's); and the
# installed plugin loads from there, its libraries found by its run path.
# Usage (meson runs it): tests/install.sh MESON BUILD PLUGIN_DIR PRIVATE_DIR HEADER
set -euo pipefail
meson=$1 build=$2 plugin_dir=$3 private_dir=$4 header=$5
dest=$(mktemp -d -t clf-install.XXXXXX)
trap 'rm -rf "$dest"' EXIT

"$meson" install -C "$build" --destdir "$dest" --no-rebuild >"$dest.log" 2>&1 \
  || { cat "$dest.log"; rm -f "$dest.log"; exit 1; }
rm -f "$dest.log"
expected=$(printf '%s\n' "$plugin_dir/libgstclfilter.so" \
  "$private_dir/libclf.so" "$private_dir/libgstcl-1.0.so" "$header" | sort)
installed=$(cd "$dest" && find . ! -type d | sed 's|^\.||' | sort)
if [ "$installed" != "$expected" ]; then
  echo "meson install put files where a plugin's do not go:"
  diff <(echo "$expected") <(echo "$installed") || true
  exit 1
fi

out=$(GST_PLUGIN_SYSTEM_PATH_1_0='' GST_PLUGIN_PATH_1_0="$dest$plugin_dir" \
  GST_REGISTRY_1_0="$dest/registry.bin" gst-inspect-1.0 clfilter 2>&1) \
  || { echo "the installed plugin did not load:"; echo "$out"; exit 1; }
grep -q "Filename *$dest$plugin_dir/libgstclfilter.so" <<<"$out" \
  || { echo "gst-inspect did not load the installed plugin:"; echo "$out"; exit 1; }
echo "installed: $(tr '\n' ' ' <<<"$installed")"
