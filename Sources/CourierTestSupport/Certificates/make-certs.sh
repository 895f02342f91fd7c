#!/usr/bin/env bash
# Regenerates the TLS test matrix (committed; tests never run this). Needs the openssl CLI.
#   ca.pem / ca.key                 trusted test root
#   intermediate.pem / .key         signed by ca; signs every "good" leaf
#   valid.pem / .key                localhost, ::1 via intermediate (chain.pem = leaf + intermediate)
#   ip.pem / .key                   IP:127.0.0.1 only, via intermediate (ip-chain.pem)
#   wronghost.pem / .key            wrong.example only, via intermediate (wronghost-chain.pem)
#   cnonly.pem / .key               CN=localhost and no subjectAltName at all (cnonly-chain.pem):
#                                   a CN-ID, which RFC 9525 §6.3 says a client must not use
#   expired.pem / .key              localhost, validity 2001..2002 (expired-chain.pem)
#   notyet.pem / .key               localhost, validity 2090..2091 (notyet-chain.pem)
#   revoked.pem / .key              localhost, ::1 via intermediate, revoked in intermediate.crl
#                                   and in the OCSP index (revoked-chain.pem)
#   muststaple.pem / .key           localhost, ::1 with the TLS feature status_request (RFC 7633)
#                                   (muststaple-chain.pem)
#   ocsp.pem / .key                 the intermediate's OCSP responder (extendedKeyUsage OCSPSigning)
#   intermediate-index.txt          the intermediate's CA database: `openssl ocsp -index` reads it
#   intermediate.crl, ca.crl        CRLs (PEM) of the intermediate (revoked.pem listed) and of the
#                                   root (empty); crl-bundle.pem holds both
#   selfsigned.pem / .key           self-signed localhost/127.0.0.1
#   other-ca.pem, untrusted.pem     a root nobody trusts and a leaf it signed (untrusted-chain.pem)
#   client.pem / .key               clientAuth leaf signed by ca (for mTLS)
#   client-encrypted.key            client.key as encrypted PKCS#8 (AES-256), password "courier-test"
# Every issuer keeps one database, so serial numbers are unique per issuer (CRLs and OCSP name
# certificates by serial).
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
long=36500

key() { openssl ecparam -name prime256v1 -genkey -noout -out "$1.key" 2>/dev/null; }

# The openssl ca configuration of issuer $1, with extensions $2 in section [ext].
config() {
  mkdir -p "$work/db-$1"
  [ -f "$work/db-$1/index" ] || { : > "$work/db-$1/index"; echo 1000 > "$work/db-$1/serial"; echo 1000 > "$work/db-$1/crlnumber"; }
  cat > "$work/$1.cnf" <<CNF
[ca]
default_ca = c
[c]
database = $work/db-$1/index
serial = $work/db-$1/serial
crlnumber = $work/db-$1/crlnumber
new_certs_dir = $work/db-$1
default_md = sha256
policy = p
unique_subject = no
copy_extensions = none
default_crl_days = $long
[p]
commonName = supplied
[ext]
$2
CNF
}

root() { # name subject
  key "$1"
  openssl req -x509 -new -key "$1.key" -sha256 -days $long -subj "/CN=$2" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" -out "$1.pem"
}

# sign name issuer subject extensions startdate enddate
sign() {
  key "$1"
  openssl req -new -key "$1.key" -subj "/CN=$3" -out "$work/$1.csr"
  config "$2" "$4"
  openssl ca -batch -notext -config "$work/$2.cnf" -extensions ext -cert "$2.pem" -keyfile "$2.key" \
    -startdate "$5" -enddate "$6" -in "$work/$1.csr" -out "$1.pem" 2>/dev/null
}

now=$(date -u +%Y%m%d000000Z)
far=21251231000000Z
leafext=$'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth'
localsan=$'\nsubjectAltName=DNS:localhost,IP:::1'

root ca "Courier Test Root"
sign intermediate ca "Courier Test Intermediate" $'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign' "$now" "$far"
sign valid intermediate localhost "$leafext$localsan" "$now" "$far"
sign ip intermediate 127.0.0.1 "$leafext"$'\nsubjectAltName=IP:127.0.0.1' "$now" "$far"
sign wronghost intermediate wrong.example "$leafext"$'\nsubjectAltName=DNS:wrong.example' "$now" "$far"
sign cnonly intermediate localhost "$leafext" "$now" "$far"
sign expired intermediate localhost "$leafext"$'\nsubjectAltName=DNS:localhost,IP:127.0.0.1' 20010101000000Z 20020101000000Z
sign notyet intermediate localhost "$leafext"$'\nsubjectAltName=DNS:localhost,IP:127.0.0.1' 20900101000000Z 20910101000000Z
sign revoked intermediate localhost "$leafext$localsan" "$now" "$far"
sign muststaple intermediate localhost "$leafext$localsan"$'\ntlsfeature=status_request' "$now" "$far"
sign ocsp intermediate "Courier Test OCSP" $'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=critical,OCSPSigning' "$now" "$far"
sign client ca "Courier Test Client" $'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth' "$now" "$far"
key selfsigned
openssl req -x509 -new -key selfsigned.key -sha256 -days $long -subj "/CN=localhost" \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -addext "basicConstraints=critical,CA:FALSE" -out selfsigned.pem
root other-ca "Courier Untrusted Root"
sign untrusted other-ca localhost "$leafext"$'\nsubjectAltName=DNS:localhost,IP:127.0.0.1' "$now" "$far"

# Revocation: revoked.pem in the intermediate's database, then both CRLs.
config intermediate ""
openssl ca -config "$work/intermediate.cnf" -cert intermediate.pem -keyfile intermediate.key -revoke revoked.pem -crl_reason keyCompromise 2>/dev/null
openssl ca -config "$work/intermediate.cnf" -cert intermediate.pem -keyfile intermediate.key -gencrl -out intermediate.crl 2>/dev/null
config ca ""
openssl ca -config "$work/ca.cnf" -cert ca.pem -keyfile ca.key -gencrl -out ca.crl 2>/dev/null
cat intermediate.crl ca.crl > crl-bundle.pem
cp "$work/db-intermediate/index" intermediate-index.txt

for leaf in valid ip wronghost cnonly expired notyet revoked muststaple; do cat $leaf.pem intermediate.pem > $leaf-chain.pem; done
cat untrusted.pem > untrusted-chain.pem
openssl pkey -in client.key -aes256 -passout pass:courier-test -out client-encrypted.key
rm -f other-ca.key
echo "certificates written to $(pwd)"
