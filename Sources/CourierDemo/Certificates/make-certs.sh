#!/usr/bin/env bash
# Regenerates the demo's certificates (committed; the demo never runs this). Needs the openssl CLI.
#   ca.pem            the demo's own root, trusted by the demo's client only (its key is not kept)
#   localhost.pem     localhost, 127.0.0.1, signed by ca.pem: the HTTPS server's certificate,
#   localhost.key     whose public key the demo pins
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
days=36500
openssl ecparam -name prime256v1 -genkey -noout -out "$work/ca.key" 2>/dev/null
openssl req -x509 -new -key "$work/ca.key" -sha256 -days $days -subj "/CN=Courier demo root" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" -out ca.pem
openssl ecparam -name prime256v1 -genkey -noout -out localhost.key 2>/dev/null
openssl req -new -key localhost.key -subj "/CN=localhost" -out "$work/localhost.csr"
printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n' > "$work/ext"
openssl x509 -req -in "$work/localhost.csr" -CA ca.pem -CAkey "$work/ca.key" -CAcreateserial -sha256 \
  -days $days -extfile "$work/ext" -out localhost.pem 2>/dev/null
rm -f ca.srl
