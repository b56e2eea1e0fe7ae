#!/usr/bin/env bash
# A local certificate authority and a server certificate signed by it, for trying TLS (docs/tls.md):
#
#   scripts/tls/make-local-ca.sh [DIR] [NAME ...]
#
# DIR (default data/tls, which `npm start` with MQTT_TLS=1 and docker-compose.yml read) gets
#   ca.crt      the CA certificate: what a device is given to verify the server
#   ca.key      the CA's private key (0600): only to sign a new server certificate
#   server.crt  the server certificate (Mosquitto's TLS listener, haproxy's HTTPS)
#   server.key  its private key (0600)
# The server certificate names localhost, 127.0.0.1, ::1, this host's name, the compose services
# devices and clients reach (mosquitto, haproxy) and each NAME given (a DNS name or an IP address).
#
# Run again, it keeps what is there: the CA always (devices already trust it), the server
# certificate unless it expires within 30 days or lacks one of the names; then only that one is
# made again, signed by the same CA. Needs openssl (1.1.1 or later). Prints no key.
set -euo pipefail
umask 077

dir="${1:-$(dirname "${BASH_SOURCE[0]}")/../../data/tls}"
shift || true
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
say() { echo "tls: $*"; }
command -v openssl >/dev/null 2>&1 || { say "openssl not found: install it (Debian: apt-get install openssl)" >&2; exit 1; }

names=(localhost 127.0.0.1 ::1 "$(hostname)" mosquitto haproxy "$@")
san=""
for name in "${names[@]}"; do
  [ -n "$name" ] || continue
  if [[ "$name" =~ ^[0-9.]+$ || "$name" == *:* ]]; then entry="IP:$name"; else entry="DNS:$name"; fi
  case ",$san," in *",$entry,"*) ;; *) san="${san:+$san,}$entry" ;; esac
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ ! -s "$dir/ca.crt" ] || [ ! -s "$dir/ca.key" ]; then
  cat >"$work/ca.cnf" <<EOF
[req]
distinguished_name = dn
prompt = no
x509_extensions = ca
[dn]
CN = Device Data Service local CA ($(hostname))
[ca]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
EOF
  openssl req -x509 -new -newkey rsa:2048 -nodes -sha256 -days 3650 -config "$work/ca.cnf" \
    -keyout "$work/ca.key" -out "$work/ca.crt" 2>/dev/null
  chmod 0644 "$work/ca.crt"
  mv "$work/ca.key" "$dir/ca.key"
  mv "$work/ca.crt" "$dir/ca.crt"
  rm -f "$dir/server.crt" "$dir/server.key"
  say "made a CA: $dir/ca.crt (valid 10 years)"
fi

# True when server.crt is signed by this CA, valid for 30 more days and names every name above.
server_current() {
  [ -s "$dir/server.crt" ] && [ -s "$dir/server.key" ] || return 1
  openssl verify -CAfile "$dir/ca.crt" "$dir/server.crt" >/dev/null 2>&1 || return 1
  openssl x509 -in "$dir/server.crt" -noout -checkend $((30 * 86400)) >/dev/null || return 1
  local have
  have="$(openssl x509 -in "$dir/server.crt" -noout -ext subjectAltName 2>/dev/null | tail -n +2 | tr -d ' ' | sed 's/IPAddress:/IP:/g')"
  local entry
  IFS=',' read -r -a wanted <<<"$san"
  for entry in "${wanted[@]}"; do
    # openssl prints ::1 as 0:0:0:0:0:0:0:1
    [ "$entry" = "IP:::1" ] && entry="IP:0:0:0:0:0:0:0:1"
    case ",$have," in *",$entry,"*) ;; *) return 1 ;; esac
  done
}

if server_current; then
  say "kept the server certificate: $dir/server.crt"
else
  cat >"$work/server.cnf" <<EOF
[req]
distinguished_name = dn
prompt = no
[dn]
CN = localhost
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = $san
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF
  openssl req -new -newkey rsa:2048 -nodes -sha256 -config "$work/server.cnf" \
    -keyout "$work/server.key" -out "$work/server.csr" 2>/dev/null
  openssl x509 -req -sha256 -days 825 -in "$work/server.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" \
    -set_serial "0x$(openssl rand -hex 16)" -extfile "$work/server.cnf" -extensions server -out "$work/server.crt" 2>/dev/null
  chmod 0644 "$work/server.crt"
  mv "$work/server.key" "$dir/server.key"
  mv "$work/server.crt" "$dir/server.crt"
  shown="${san//DNS:/}"
  say "made a server certificate: $dir/server.crt (valid 825 days) for ${shown//IP:/}"
fi
say "devices verify the server with $dir/ca.crt"
