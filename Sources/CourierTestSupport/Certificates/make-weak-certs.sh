#!/usr/bin/env bash
# Adds the weak-certificate cases to the committed TLS test matrix (committed; tests never run
# this). Unlike make-certs.sh it rewrites nothing else: both leaves are signed by the committed
# intermediate.key, with serials outside the range of the intermediate's database
# (intermediate-index.txt), so make-certs.sh's CRLs and OCSP index stay as they are.
#   weakkey.pem / .key     RSA-1024 leaf for localhost, ::1 signed with SHA-256 (weakkey-chain.pem):
#                          80-bit security, below OpenSSL's security level 2 (X509_V_ERR_EE_KEY_TOO_SMALL)
#   sha1sig.pem / .key     P-256 leaf for localhost, ::1 signed with ECDSA-SHA-1 (sha1sig-chain.pem):
#                          SHA-1 counts as 63 bits in OpenSSL 3 (X509_V_ERR_CA_MD_TOO_WEAK)
# A server presenting them must lower its own security level to 0 to load them.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cat > "$work/ext.cnf" <<'CNF'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:::1
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
CNF

# leaf name serial digest  (the key is already in name.key)
leaf() {
  openssl req -new -key "$1.key" -subj "/CN=localhost" -out "$work/$1.csr"
  openssl x509 -req -in "$work/$1.csr" -CA intermediate.pem -CAkey intermediate.key -set_serial "$2" \
    "-$3" -days 36500 -extfile "$work/ext.cnf" -out "$1.pem" 2>/dev/null
  cat "$1.pem" intermediate.pem > "$1-chain.pem"
}

openssl genrsa -out weakkey.key 1024 2>/dev/null
leaf weakkey 0x2000 sha256
openssl ecparam -name prime256v1 -genkey -noout -out sha1sig.key 2>/dev/null
leaf sha1sig 0x2001 sha1
echo "weak certificates written to $(pwd)"
